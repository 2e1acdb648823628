// Lambda entry: /api/api-keys.
import { lambdaHandler } from '../http/lambda.ts';
import { apiKeyRoutes } from '../http/routes/api-keys.ts';

export const handler = lambdaHandler([apiKeyRoutes]);
