import type { RouteGroup } from '../env.ts';
import { openApiDocument } from '../openapi.ts';

/** Health and the OpenAPI document. */
export const metaRoutes: RouteGroup = (app) => {
  app.get('/api/health', (c) => c.json({ ok: true }));
  app.get('/api/openapi.json', (c) => c.json(openApiDocument(), 200, { 'Cache-Control': 'public, max-age=300' }));
};
