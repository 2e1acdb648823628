import { openReports, quarantine, release, reportSkill, reportsOf } from '../../services/moderation.ts';
import type { RouteGroup } from '../env.ts';
import { moderationOperations as op } from '../operations/moderation.ts';
import { route } from '../route.ts';

/** Reports (any signed-in user) and quarantine (admins), all with a session (docs/api.md §7.10). */
export const moderationRoutes: RouteGroup = (app) => {
  route(app, op.reportSkill, async (c, { caller, body, params }) => c.json(await reportSkill(c.var.deps, caller, params.id, body), 201));

  route(app, op.skillReports, async (c, { caller, params }) => c.json({ reports: await reportsOf(c.var.deps, caller, params.id) }, 200));

  route(app, op.openReports, async (c, { caller }) => c.json({ reports: await openReports(c.var.deps, caller) }, 200));

  route(app, op.quarantineSkill, async (c, { caller, body, params }) => c.json(await quarantine(c.var.deps, caller, params.id, body.reason), 200));

  route(app, op.releaseSkill, async (c, { caller, params }) => {
    await release(c.var.deps, caller, params.id);
    return c.body(null, 204);
  });
};
