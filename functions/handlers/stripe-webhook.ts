// Lambda entry: /api/stripe/webhook, Stripe's events about checkouts and refunds.
import { lambdaHandler } from '../http/lambda.ts';
import { stripeWebhookRoutes } from '../http/routes/stripe-webhook.ts';

export const handler = lambdaHandler([stripeWebhookRoutes]);
