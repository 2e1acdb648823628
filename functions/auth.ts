// Lambda entry: dev and GitHub sign-in, /api/me and /api/me/skills, sign-out, health and the OpenAPI document.
import { lambdaHandler } from './http/lambda.ts';
import { authRoutes } from './routes/auth.ts';
import { githubAuthRoutes } from './routes/github-auth.ts';
import { metaRoutes } from './routes/meta.ts';
import { mySkillsRoutes } from './routes/my-skills.ts';

export const handler = lambdaHandler([authRoutes, githubAuthRoutes, mySkillsRoutes, metaRoutes]);
