// Lambda entry: GET /api/analytics/<skillId>.
import { lambdaHandler } from '../http/lambda.ts';
import { analyticsRoutes } from '../http/routes/analytics.ts';

export const handler = lambdaHandler([analyticsRoutes]);
