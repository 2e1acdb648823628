// Lambda entry: POST /api/publish.
import { lambdaHandler } from '../http/lambda.ts';
import { publishRoutes } from '../http/routes/publish.ts';

export const handler = lambdaHandler([publishRoutes]);
