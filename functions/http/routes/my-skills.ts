import { skillsBy } from '../../services/publishing.ts';
import { requireSession } from '../auth.ts';
import type { RouteGroup } from '../env.ts';

/** The signed-in author's own skills, for the dashboard: a session only, newest first. */
export const mySkillsRoutes: RouteGroup = (app) => {
  app.get('/api/me/skills', async (c) => {
    const { user } = await requireSession(c);
    return c.json({ skills: await skillsBy(c.var.deps, user.id) });
  });
};
