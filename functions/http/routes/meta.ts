import { HEALTH_LISTS_AT_MOST, type Health } from '#core/schemas';
import type { RouteGroup } from '../env.ts';
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
  // The document declares every operation of every Lambda, with their schemas: loaded by the first
  // request for it, not with the cold start of the sign-in Lambda that serves it.
  route(app, op.openApiDocument, async (c) => {
    const { openApiDocument } = await import('../openapi.ts');
    return c.json(openApiDocument(), 200, { 'Cache-Control': 'public, max-age=300' });
  });
};
