// Lambda entry: the pages in place of site pages the last build did not make (CloudFront's failover origin).
import { lambdaHandler } from '../http/lambda.ts';
import { sitePageRoutes } from '../http/routes/site-pages.ts';

export const handler = lambdaHandler([sitePageRoutes]);
