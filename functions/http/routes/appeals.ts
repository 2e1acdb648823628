import { appealForReview, appealsOf, approveAppeal, declineAppeal, fileAppeal, pendingAppeals } from '../../services/appeals.ts';
import type { RouteGroup } from '../env.ts';
import { rateLimitHeaders } from '../errors.ts';
import { appealOperations as op } from '../operations/appeals.ts';
import { route } from '../route.ts';

/** Appeals: authors file and follow them (session or API key); admins decide them (session). */
export const appealRoutes: RouteGroup = (app) => {
  route(app, op.fileAppeal, async (c, { caller, body }) => {
    const { result, rate } = await fileAppeal(c.var.deps, caller, body);
    return c.json(result, 201, rateLimitHeaders(rate.limit, rate.remaining, rate.resetSeconds));
  });

  route(app, op.myAppeals, async (c, { caller }) => c.json({ appeals: await appealsOf(c.var.deps, caller) }, 200));

  route(app, op.pendingAppeals, async (c, { caller }) => c.json({ appeals: await pendingAppeals(c.var.deps, caller) }, 200));

  route(app, op.appealForReview, async (c, { caller, params }) => c.json(await appealForReview(c.var.deps, caller, params.id), 200));

  route(app, op.approveAppeal, async (c, { caller, params }) => c.json(await approveAppeal(c.var.deps, caller, params.id), 200));

  route(app, op.declineAppeal, async (c, { caller, body, params }) => c.json(await declineAppeal(c.var.deps, caller, params.id, body.reason), 200));
};
