// Lambda entry: /api/api-keys, and the OIDC exchange for CI publish tokens.
import { lambdaHandler } from '../http/lambda.ts';
import { apiKeyRoutes } from '../http/routes/api-keys.ts';
import { oidcExchangeRoutes } from '../http/routes/trusted-publishing.ts';

export const handler = lambdaHandler([apiKeyRoutes, oidcExchangeRoutes]);
