// Lambda entry: reports of skills, and the admins' quarantine.
import { lambdaHandler } from '../http/lambda.ts';
import { moderationRoutes } from '../http/routes/moderation.ts';

export const handler = lambdaHandler([moderationRoutes]);
