import { installAnalytics } from '../../services/analytics.ts';
import type { RouteGroup } from '../env.ts';
import { analyticsOperations as op } from '../operations/analytics.ts';
import { route } from '../route.ts';

/** Install analytics for the author's dashboard: a session only, the author only (docs/api.md). */
export const analyticsRoutes: RouteGroup = (app) => {
  route(app, op.installAnalytics, async (c, { caller, params }) => c.json(await installAnalytics(c.var.deps, caller, params.skillId), 200));
};
