import { HEALTH_LISTS_AT_MOST, type Health } from '#core/schemas';
import type { RouteGroup } from '../env.ts';
import { openApiDocument } from '../openapi.ts';

/** Health and the OpenAPI document. */
export const metaRoutes: RouteGroup = (app) => {
  // 200 even when degraded: the API serves; see the OpenAPI description for why.
  app.get('/api/health', (c) => {
    const failing = c.get('deps').failingRebuilds();
    const health: Health =
      failing.length === 0 ? { status: 'ok' } : { status: 'degraded', rebuild: { failing: failing.length, skills: failing.slice(0, HEALTH_LISTS_AT_MOST) } };
    return c.json(health);
  });
  app.get('/api/openapi.json', (c) => c.json(openApiDocument(), 200, { 'Cache-Control': 'public, max-age=300' }));
};
