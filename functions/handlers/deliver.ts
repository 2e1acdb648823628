// Lambda entry: GET /api/deliver/<skillId>.
import { lambdaHandler } from '../http/lambda.ts';
import { deliverRoutes } from '../http/routes/deliver.ts';

export const handler = lambdaHandler([deliverRoutes]);
