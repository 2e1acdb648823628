import { apiKeyBodySchema } from '#core/schemas';
import { apiKeysOf, issueApiKey, withdrawApiKey } from '../../services/api-keys.ts';
import { requireSession } from '../auth.ts';
import { readBody } from '../body.ts';
import type { RouteGroup } from '../env.ts';

/** API keys: created and managed only from a signed-in browser session (docs/api.md). */
export const apiKeyRoutes: RouteGroup = (app) => {
  app.post('/api/api-keys', async (c) => {
    const { user } = await requireSession(c);
    const { name } = await readBody(c, apiKeyBodySchema);
    return c.json(await issueApiKey(c.var.deps, user.id, name), 201);
  });

  app.get('/api/api-keys', async (c) => {
    const { user } = await requireSession(c);
    return c.json({ keys: await apiKeysOf(c.var.deps, user.id) });
  });

  app.delete('/api/api-keys/:id', async (c) => {
    const { user } = await requireSession(c);
    await withdrawApiKey(c.var.deps, user.id, c.req.param('id'));
    return c.body(null, 204);
  });
};
