// Lambda entry: POST /api/skills/<id>/versions.
import { lambdaHandler } from '../http/lambda.ts';
import { versionRoutes } from '../http/routes/publish.ts';

export const handler = lambdaHandler([versionRoutes]);
