// Lambda entry: dev and GitHub sign-in, /api/me and /api/me/skills, sign-out, health and the OpenAPI document.
import { lambdaHandler } from '../http/lambda.ts';
import { signInRoutes } from '../http/routes/sign-in.ts';
import { gitHubSignInRoutes } from '../http/routes/github-sign-in.ts';
import { metaRoutes } from '../http/routes/meta.ts';
import { mySkillsRoutes } from '../http/routes/my-skills.ts';

export const handler = lambdaHandler([signInRoutes, gitHubSignInRoutes, mySkillsRoutes, metaRoutes]);
