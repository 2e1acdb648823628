// Lambda entry: GET /api/me/skills.
import { lambdaHandler } from './http/lambda.ts';
import { mySkillsRoutes } from './routes/my-skills.ts';

export const handler = lambdaHandler([mySkillsRoutes]);
