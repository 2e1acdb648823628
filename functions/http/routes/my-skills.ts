import { skillsBy } from '../../services/skill-views.ts';
import type { RouteGroup } from '../env.ts';
import { mySkillsOperations as op } from '../operations/my-skills.ts';
import { route } from '../route.ts';

/** The signed-in author's own skills, for the dashboard: a session only, newest first. */
export const mySkillsRoutes: RouteGroup = (app) => {
  route(app, op.mySkills, async (c, { caller }) => c.json({ skills: await skillsBy(c.var.deps, caller.user.id) }, 200));
};
