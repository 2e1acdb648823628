import { receiveStripeEvent } from '../../services/stripe-webhook.ts';
import type { RouteGroup } from '../env.ts';
import { stripeWebhookOperations as op } from '../operations/stripe-webhook.ts';
import { route } from '../route.ts';

/**
 * Stripe's webhook. Its credential is the signature over the exact bytes Stripe sent, so the body
 * is read raw here, not parsed as JSON first; no session, Origin or content-type rule applies.
 */
export const stripeWebhookRoutes: RouteGroup = (app) => {
  route(app, op.stripeWebhook, async (c) => {
    const payload = new Uint8Array(await c.req.arrayBuffer());
    const outcome = await receiveStripeEvent(c.var.deps, payload, c.req.header('stripe-signature'));
    return c.json({ received: true as const, outcome }, 200);
  });
};
