import { downloadTokenBodySchema, grantBodySchema } from '#core/schemas';
import { downloadTokensOf, grantAccess, grantsOf, issueDownloadToken, withdrawDownloadToken, withdrawGrant } from '../../services/access.ts';
import { requireSessionOrApiKey } from '../auth.ts';
import { readBody } from '../body.ts';
import type { RouteGroup } from '../env.ts';

/** Paid access, managed by the skill's author with a session or an API key: download tokens and grants (docs/api.md). */
export const accessRoutes: RouteGroup = (app) => {
  app.post('/api/skills/:id/download-tokens', async (c) => {
    const { user } = await requireSessionOrApiKey(c);
    const body = await readBody(c, downloadTokenBodySchema);
    return c.json(await issueDownloadToken(c.var.deps, user, c.req.param('id'), body), 201);
  });

  app.get('/api/skills/:id/download-tokens', async (c) => {
    const { user } = await requireSessionOrApiKey(c);
    return c.json({ tokens: await downloadTokensOf(c.var.deps, user, c.req.param('id')) });
  });

  app.delete('/api/skills/:id/download-tokens/:tokenId', async (c) => {
    const { user } = await requireSessionOrApiKey(c);
    await withdrawDownloadToken(c.var.deps, user, c.req.param('id'), c.req.param('tokenId'));
    return c.body(null, 204);
  });

  app.post('/api/skills/:id/grants', async (c) => {
    const { user } = await requireSessionOrApiKey(c);
    const { login } = await readBody(c, grantBodySchema);
    return c.json(await grantAccess(c.var.deps, user, c.req.param('id'), login), 201);
  });

  app.get('/api/skills/:id/grants', async (c) => {
    const { user } = await requireSessionOrApiKey(c);
    return c.json({ grants: await grantsOf(c.var.deps, user, c.req.param('id')) });
  });

  app.delete('/api/skills/:id/grants/:login', async (c) => {
    const { user } = await requireSessionOrApiKey(c);
    await withdrawGrant(c.var.deps, user, c.req.param('id'), c.req.param('login'));
    return c.body(null, 204);
  });
};
