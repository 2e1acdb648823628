// Lambda entry: GET /api/search.
import { lambdaHandler } from '../http/lambda.ts';
import { searchRoutes } from '../http/routes/search.ts';

export const handler = lambdaHandler([searchRoutes]);
