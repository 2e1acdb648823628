import { requireSession } from '../auth.ts';
import type { RouteGroup } from '../env.ts';
import { toSkill } from '../../services/publishing.ts';
import { listSkillsByAuthor } from '../../store/skills.ts';

/** The signed-in author's own skills, for the dashboard: a session only, newest first. */
export const mySkillsRoutes: RouteGroup = (app) => {
  app.get('/api/me/skills', async (c) => {
    const { user } = await requireSession(c);
    const skills = await listSkillsByAuthor(c.var.deps.db, user.id);
    // The index sorts by creation time, oldest first; the dashboard lists the newest first.
    return c.json({ skills: skills.reverse().map(toSkill) });
  });
};
