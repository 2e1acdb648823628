// Lambda entry: GitHub imports (POST/GET /api/imports, sync now and the webhook), which publish skills and versions.
import { lambdaHandler } from '../http/lambda.ts';
import { importRoutes } from '../http/routes/imports.ts';

export const handler = lambdaHandler([importRoutes]);
