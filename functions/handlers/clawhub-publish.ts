// Lambda entry: POST /api/v1/skills, a ClawHub client's publish.
import { lambdaHandler } from '../http/lambda.ts';
import { clawhubPublishRoutes } from '../http/routes/clawhub-publish.ts';

export const handler = lambdaHandler([clawhubPublishRoutes]);
