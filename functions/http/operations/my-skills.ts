import { skillListSchema } from '#core/schemas';
import { operations } from '../operation.ts';

/** The signed-in author's own skills, for the dashboard (docs/api.md §7.2). */
export const mySkillsOperations = operations(
  { name: 'My skills', description: "The signed-in author's own skills, for the dashboard." },
  {
    mySkills: {
      method: 'get',
      path: '/api/me/skills',
      summary: "The signed-in author's skills, newest first (session only)",
      auth: 'session',
      success: { status: 200, description: 'OK', schema: skillListSchema },
    },
  },
);
