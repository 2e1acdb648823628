import { apiKeysOf, issueApiKey, withdrawApiKey } from '../../services/api-keys.ts';
import type { RouteGroup } from '../env.ts';
import { apiKeyOperations as op } from '../operations/api-keys.ts';
import { route } from '../route.ts';

/** API keys: created and managed only from a signed-in browser session (docs/api.md). */
export const apiKeyRoutes: RouteGroup = (app) => {
  route(app, op.issueApiKey, async (c, { caller, body }) => c.json(await issueApiKey(c.var.deps, caller, body), 201));

  route(app, op.listApiKeys, async (c, { caller }) => c.json({ keys: await apiKeysOf(c.var.deps, caller.user.id) }, 200));

  route(app, op.withdrawApiKey, async (c, { caller, params }) => {
    await withdrawApiKey(c.var.deps, caller, params.id);
    return c.body(null, 204);
  });
};
