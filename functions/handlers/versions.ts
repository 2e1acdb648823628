// Lambda entry: POST /api/skills/<id>/versions, and yanking, deprecating and trusted publishers (the owning side's other writes to a skill).
import { lambdaHandler } from '../http/lambda.ts';
import { lifecycleRoutes } from '../http/routes/lifecycle.ts';
import { versionRoutes } from '../http/routes/publish.ts';
import { trustedPublisherRoutes } from '../http/routes/trusted-publishing.ts';

export const handler = lambdaHandler([versionRoutes, lifecycleRoutes, trustedPublisherRoutes]);
