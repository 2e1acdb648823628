import { downloadTokensOf, grantAccess, grantsOf, issueDownloadToken, withdrawDownloadToken, withdrawGrant } from '../../services/access.ts';
import type { RouteGroup } from '../env.ts';
import { accessOperations as op } from '../operations/access.ts';
import { route } from '../route.ts';

/** Paid access, managed by the skill's author with a session or an API key: download tokens and grants (docs/api.md). */
export const accessRoutes: RouteGroup = (app) => {
  route(app, op.issueDownloadToken, async (c, { caller, body, params }) => c.json(await issueDownloadToken(c.var.deps, caller, params.id, body), 201));

  route(app, op.listDownloadTokens, async (c, { caller, params }) => c.json({ tokens: await downloadTokensOf(c.var.deps, caller, params.id) }, 200));

  route(app, op.withdrawDownloadToken, async (c, { caller, params }) => {
    await withdrawDownloadToken(c.var.deps, caller, params.id, params.tokenId);
    return c.body(null, 204);
  });

  route(app, op.grantAccess, async (c, { caller, body, params }) => c.json(await grantAccess(c.var.deps, caller, params.id, body.login), 201));

  route(app, op.listGrants, async (c, { caller, params }) => c.json({ grants: await grantsOf(c.var.deps, caller, params.id) }, 200));

  route(app, op.withdrawGrant, async (c, { caller, params }) => {
    await withdrawGrant(c.var.deps, caller, params.id, params.login);
    return c.body(null, 204);
  });
};
