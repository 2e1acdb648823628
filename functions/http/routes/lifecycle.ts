import { setSkillDeprecated, setVersionYanked } from '../../services/lifecycle.ts';
import type { RouteGroup } from '../env.ts';
import { lifecycleOperations as op } from '../operations/lifecycle.ts';
import { route } from '../route.ts';

/** Yanking versions and deprecating skills, by their author with a session or an API key (docs/api.md §7.5). */
export const lifecycleRoutes: RouteGroup = (app) => {
  route(app, op.yankVersion, async (c, { caller, body, params }) =>
    c.json(await setVersionYanked(c.var.deps, caller, params.id, params.version, { ...(body.reason === undefined ? {} : { reason: body.reason }) }), 200),
  );

  route(app, op.unyankVersion, async (c, { caller, params }) => c.json(await setVersionYanked(c.var.deps, caller, params.id, params.version, undefined), 200));

  route(app, op.deprecateSkill, async (c, { caller, body, params }) => c.json(await setSkillDeprecated(c.var.deps, caller, params.id, body.message), 200));

  route(app, op.undeprecateSkill, async (c, { caller, params }) => c.json(await setSkillDeprecated(c.var.deps, caller, params.id, null), 200));
};
