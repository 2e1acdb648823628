import * as z from 'zod/mini';
import { webhookReceivedSchema } from '#core/schemas';
import { operations } from '../operation.ts';
import { lazySchema } from '#core/lazy-schema';

/** Stripe's webhook endpoint (docs/api.md §9.4). */
export const stripeWebhookOperations = operations(
  { name: 'Stripe webhook', description: 'Events from Stripe: completed checkouts record purchases, refunds revoke them.' },
  {
    stripeWebhook: {
      method: 'post',
      path: '/api/stripe/webhook',
      summary: 'Receive a Stripe event, verified by its Stripe-Signature',
      description:
        'For Stripe only. The signature is checked over the raw body before anything else; a bad, stale or missing one is a 400 and ' +
        'changes nothing. checkout.session.completed (paid) and checkout.session.async_payment_succeeded record the purchase once per ' +
        'session, however often the event is delivered; charge.refunded (a full refund) revokes it; other events are acknowledged and ignored.',
      auth: 'stripeSignature',
      rawBody: lazySchema(() =>
        z.object({ id: z.string(), type: z.string(), data: z.object({ object: z.record(z.string(), z.unknown()) }) }).check(z.describe('a Stripe event')),
      ),
      success: { status: 200, description: 'Received', schema: webhookReceivedSchema },
      errors: ['invalid_request', 'payments_unavailable'],
    },
  },
);
