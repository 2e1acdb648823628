import { HEALTH_LISTS_AT_MOST, type Health } from '#core/schemas';
import type { RouteGroup } from '../env.ts';
import { openApiDocument } from '../openapi.ts';
import { metaOperations as op } from '../operations/meta.ts';
import { route } from '../route.ts';

/** Health and the OpenAPI document. */
export const metaRoutes: RouteGroup = (app) => {
  // 200 even when degraded: the API serves; see the operation's description for why.
  route(app, op.health, (c) => {
    const failing = c.get('deps').failingRebuilds();
    const health: Health =
      failing.length === 0 ? { status: 'ok' } : { status: 'degraded', rebuild: { failing: failing.length, skills: failing.slice(0, HEALTH_LISTS_AT_MOST) } };
    return c.json(health, 200);
  });
  route(app, op.openApiDocument, (c) => c.json(openApiDocument(), 200, { 'Cache-Control': 'public, max-age=300' }));
};
