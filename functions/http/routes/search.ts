import { skillsFindAnswer, wantsSkillsFindShape } from '#core/search/skills-find';
import type { RouteGroup } from '../env.ts';
import { searchOperations as op } from '../operations/search.ts';
import { route } from '../route.ts';

/**
 * Searching the catalog: public, and the same answer for any client of one kind, so a cache may
 * keep it a minute (per user agent and Accept: the `skills` CLI gets its own shape). The search
 * (MiniSearch and the index reader) is loaded with the first search a process serves.
 */
export const searchRoutes: RouteGroup = (app) => {
  route(app, op.search, async (c, { query }) => {
    const { searchSkills } = await import('../../services/search.ts');
    const { owner, ...request } = query;
    const answer = await searchSkills(c.var.deps, request);
    const headers = { 'Cache-Control': 'public, max-age=60', Vary: 'User-Agent, Accept' };
    if (!wantsSkillsFindShape({ userAgent: c.req.header('user-agent'), accept: c.req.header('accept') })) return c.json(answer, 200, headers);
    const origin = c.var.deps.config.siteOrigin ?? new URL(c.req.url).origin;
    return c.json(skillsFindAnswer(answer, origin, owner), 200, headers);
  });
};
