// Lambda entry: Stripe Checkout for paid skills, /api/me/purchases and /api/skills/<id>/sales.
import { lambdaHandler } from '../http/lambda.ts';
import { purchaseRoutes } from '../http/routes/purchases.ts';

export const handler = lambdaHandler([purchaseRoutes]);
