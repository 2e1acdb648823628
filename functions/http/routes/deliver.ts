import { deliver } from '../../services/delivery.ts';
import { credentialCaller } from '../auth.ts';
import { clientFacts } from '../client.ts';
import type { RouteGroup } from '../env.ts';
import { deliveryOperations as op } from '../operations/deliver.ts';
import { largeDeliveryAnswer } from '../large-delivery.ts';
import { route } from '../route.ts';

/** Counted delivery of a skill version's content; free skills need no credentials (docs/api.md). */
export const deliverRoutes: RouteGroup = (app) => {
  route(app, op.deliver, async (c, { query, params }) => {
    const delivery = await deliver(c.var.deps, {
      ...query,
      skillId: params.skillId,
      caller: () => credentialCaller(c),
      // Hono routes HEAD to GET handlers; a HEAD must not count as an install.
      install: c.req.method !== 'HEAD',
      client: clientFacts(c),
      channel: 'deliver',
      linkLarge: true,
    });
    // Every response is counted and may be paid content (or a link to it): no shared or browser cache may keep it.
    if (delivery.large) return largeDeliveryAnswer(c, delivery.large.location);
    return c.body(delivery.body, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'private, no-store' });
  });
};
