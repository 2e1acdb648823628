import { deliverQuerySchema } from '#core/schemas';
import { deliver } from '../../services/delivery.ts';
import { sessionCaller } from '../auth.ts';
import type { RouteGroup } from '../env.ts';
import { readQuery } from '../query.ts';

/** Counted delivery of a skill version's content; free skills need no credentials (docs/api.md §7). */
export const deliverRoutes: RouteGroup = (app) => {
  app.get('/api/deliver/:skillId', async (c) => {
    const query = readQuery(c, deliverQuerySchema);
    const delivery = await deliver(c.var.deps, {
      ...query,
      skillId: c.req.param('skillId'),
      sessionUser: async () => (await sessionCaller(c))?.user,
      // Hono routes HEAD to GET handlers; a HEAD must not count as an install.
      install: c.req.method !== 'HEAD',
    });
    // Every response is counted and may be paid content: no shared or browser cache may keep it.
    return c.body(delivery.json, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'private, no-store' });
  });
};
