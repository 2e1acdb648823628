import type { RouteGroup } from '../env.ts';
import { searchOperations as op } from '../operations/search.ts';
import { route } from '../route.ts';

/**
 * Searching the catalog: public, and the same answer for anyone, so the CDN may keep it a minute.
 * The search (MiniSearch and the index reader) is loaded with the first search a process serves.
 */
export const searchRoutes: RouteGroup = (app) => {
  route(app, op.search, async (c, { query }) => {
    const { searchSkills } = await import('../../services/search.ts');
    return c.json(await searchSkills(c.var.deps, query), 200, { 'Cache-Control': 'public, max-age=60' });
  });
};
