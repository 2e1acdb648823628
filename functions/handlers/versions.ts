// Lambda entry: POST /api/skills/<id>/versions, and yanking and deprecating (the author's other writes to a skill).
import { lambdaHandler } from '../http/lambda.ts';
import { lifecycleRoutes } from '../http/routes/lifecycle.ts';
import { versionRoutes } from '../http/routes/publish.ts';

export const handler = lambdaHandler([versionRoutes, lifecycleRoutes]);
