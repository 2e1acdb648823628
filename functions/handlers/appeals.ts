// Lambda entry: appeals of refused versions, and the admins' decisions on them.
import { lambdaHandler } from '../http/lambda.ts';
import { appealRoutes } from '../http/routes/appeals.ts';

export const handler = lambdaHandler([appealRoutes]);
