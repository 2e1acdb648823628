import { installAnalytics } from '../../services/analytics.ts';
import { requireSession } from '../auth.ts';
import type { RouteGroup } from '../env.ts';

/** Install analytics for the author's dashboard: a session only, the author only (docs/api.md). */
export const analyticsRoutes: RouteGroup = (app) => {
  app.get('/api/analytics/:skillId', async (c) => {
    const { user } = await requireSession(c);
    return c.json(await installAnalytics(c.var.deps, user, c.req.param('skillId')));
  });
};
