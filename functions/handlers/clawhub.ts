// Lambda entry: the ClawHub-compatible reads and downloads under /api/v1/, and /.well-known/clawhub.json and clawdhub.json.
import { lambdaHandler } from '../http/lambda.ts';
import { clawhubRoutes } from '../http/routes/clawhub.ts';

export const handler = lambdaHandler([clawhubRoutes]);
