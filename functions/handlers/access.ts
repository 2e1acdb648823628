// Lambda entry: /api/skills/<id>/download-tokens and /api/skills/<id>/grants.
import { lambdaHandler } from '../http/lambda.ts';
import { accessRoutes } from '../http/routes/access.ts';

export const handler = lambdaHandler([accessRoutes]);
