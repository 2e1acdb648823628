import { apiKeyBodySchema } from '#core/schemas';
import { requireSession } from '../auth.ts';
import { readBody } from '../body.ts';
import type { RouteGroup } from '../env.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../../store/api-keys.ts';

/** API keys: created and managed only from a signed-in browser session (DESIGN.md §3). */
export const apiKeyRoutes: RouteGroup = (app) => {
  app.post('/api/api-keys', async (c) => {
    const { user } = await requireSession(c);
    const { name } = await readBody(c, apiKeyBodySchema);
    const created = await createApiKey(c.var.deps.db, user.id, name, c.var.deps.clock());
    return c.json(created, 201);
  });

  app.get('/api/api-keys', async (c) => {
    const { user } = await requireSession(c);
    const keys = await listApiKeys(c.var.deps.db, user.id);
    keys.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
    return c.json({ keys: keys.map(({ id, name, prefix, createdAt, lastUsedAt }) => ({ id, name, prefix, createdAt, lastUsedAt })) });
  });

  app.delete('/api/api-keys/:id', async (c) => {
    const { user } = await requireSession(c);
    await revokeApiKey(c.var.deps.db, user.id, c.req.param('id'));
    return c.body(null, 204);
  });
};
