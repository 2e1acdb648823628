// Lambda entry: GET /api/deliver/<skillId>, and the registry documents members read of private skills.
import { lambdaHandler } from '../http/lambda.ts';
import { deliverRoutes } from '../http/routes/deliver.ts';
import { registryReadRoutes } from '../http/routes/registry-reads.ts';

export const handler = lambdaHandler([deliverRoutes, registryReadRoutes]);
