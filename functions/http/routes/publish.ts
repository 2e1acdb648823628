import { publishBodySchema, versionBodySchema } from '#core/schemas';
import { requireApiKey, requireSessionOrApiKey } from '../auth.ts';
import { readBody } from '../body.ts';
import type { RouteGroup } from '../env.ts';
import { rateLimitHeaders } from '../errors.ts';
import { publishSkill, publishVersion } from '../../services/publishing.ts';

/** Publishing skills (API key) and their versions (session or API key). */
export const publishRoutes: RouteGroup = (app) => {
  app.post('/api/publish', async (c) => {
    const { user } = await requireApiKey(c);
    const body = await readBody(c, publishBodySchema);
    const { result, rate } = await publishSkill(c.var.deps, user, body);
    const headers = rate ? rateLimitHeaders(c.var.deps.config.publishLimit, rate.remaining, rate.resetSeconds) : {};
    return c.json(result, 201, { ...headers, Location: `/api/registry/${result.slug}` });
  });
};

export const versionRoutes: RouteGroup = (app) => {
  app.post('/api/skills/:id/versions', async (c) => {
    const { user } = await requireSessionOrApiKey(c);
    const body = await readBody(c, versionBodySchema);
    const created = await publishVersion(c.var.deps, user, c.req.param('id'), body);
    return c.json(created, 201);
  });
};
