// Lambda entry: organisations, their members, invitations and audit log.
import { lambdaHandler } from '../http/lambda.ts';
import { organisationRoutes } from '../http/routes/organisations.ts';

export const handler = lambdaHandler([organisationRoutes]);
