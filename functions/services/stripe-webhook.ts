import * as z from 'zod/mini';
import { DomainError, invalidRequest } from '#core/errors';
import { fromStripeAmount } from '#core/price';
import type { Deps } from '../platform/composition.ts';
import { readSecret } from '../platform/secrets-manager.ts';
import { type StripeEvent, verifiedEvent } from '../platform/stripe.ts';
import {
  disputeHolds,
  getPayment,
  markRefunded,
  noteDispute,
  notePayment,
  noteRefund,
  type PurchaseItem,
  recordPurchase,
  setDisputed,
} from '../store/purchases.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * Stripe's webhook (docs/api.md §9.4). The signature is checked over the raw body before
 * anything is read or written. A paid Checkout Session records the purchase, which is the
 * buyer's entitlement, exactly once however often and however concurrently Stripe delivers the
 * event (the record is a conditional put keyed by the session); a full refund of its charge
 * marks it refunded, which ends the buyer's access and every download token minted from it. A
 * dispute of the charge (a chargeback) pauses that access while it is open, ends it if the seller
 * loses, and gives it back if the seller wins.
 */
type WebhookPorts = Pick<Deps, 'db' | 'config' | 'clock' | 'log'>;

export type WebhookOutcome = 'granted' | 'duplicate' | 'revoked' | 'suspended' | 'restored' | 'ignored';

/** Stripe ids are short; anything longer is not one and must not become part of a key. */
const stripeId = lazySchema(() => z.string().check(z.minLength(1), z.maxLength(255)));

/** The fields of a Checkout Session the purchase is made of; Stripe sends many more. */
const paidSessionSchema = lazySchema(() =>
  z.object({
    id: stripeId,
    payment_status: z.string(),
    amount_total: z.number().check(z.int(), z.nonnegative()),
    currency: z.string().check(z.length(3)),
    payment_intent: z.union([stripeId, z.object({ id: stripeId })]),
    metadata: z.object({
      skillId: z.string().check(z.minLength(1), z.maxLength(128)),
      slug: z.string().check(z.maxLength(64)),
      userId: z.string().check(z.minLength(1), z.maxLength(128)),
      login: z.string().check(z.maxLength(64)),
    }),
  }),
);

const refundedChargeSchema = lazySchema(() =>
  z.object({
    refunded: z.boolean(),
    payment_intent: z.nullish(z.union([stripeId, z.object({ id: stripeId })])),
  }),
);

/** The fields of a Dispute its handling needs: its charge's payment, and how it stands. */
const disputeSchema = lazySchema(() =>
  z.object({
    status: z.string(),
    payment_intent: z.nullish(z.union([stripeId, z.object({ id: stripeId })])),
  }),
);

/** Stripe's dispute statuses as they bear on access: won (or closed as a warning only), lost, or still open. */
const disputeState = (status: string): 'open' | 'won' | 'lost' =>
  status === 'won' || status === 'warning_closed' ? 'won' : status === 'lost' ? 'lost' : 'open';

const intentId = (value: string | { id: string }) => (typeof value === 'string' ? value : value.id);

/** Verifies and applies one delivery of a webhook event. */
export async function receiveStripeEvent(deps: WebhookPorts, payload: Uint8Array, signature: string | undefined): Promise<WebhookOutcome> {
  const secret = await readSecret(deps.config.stripe.webhookSecret, deps.config.region);
  if (!secret) throw new DomainError('payments_unavailable', 'Payments are not configured on this server (no STRIPE_WEBHOOK_SECRET)');
  if (!signature || signature.length > 4096) throw invalidRequest('A Stripe webhook needs its Stripe-Signature header');
  const event = await verifiedEvent(payload, signature, secret, deps.clock());
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      return grantPurchase(deps, event);
    case 'charge.refunded':
      return revokePurchase(deps, event);
    case 'charge.dispute.created':
    case 'charge.dispute.updated':
    case 'charge.dispute.closed':
      return disputePurchase(deps, event);
    default:
      return 'ignored';
  }
}

/**
 * Records the purchase a paid session stands for. The payment's item is written first and read
 * again after the purchase: if a refund of this payment was seen before (or while) the purchase
 * was recorded, the purchase ends up refunded whichever event came first.
 */
async function grantPurchase(deps: WebhookPorts, event: StripeEvent): Promise<WebhookOutcome> {
  const parsed = paidSessionSchema.safeParse(event.object);
  // Not one of ours (no Skillpress metadata), or not paid yet (an asynchronous payment method).
  if (!parsed.success || parsed.data.payment_status !== 'paid') return 'ignored';
  const session = parsed.data;
  const { skillId, slug, userId, login } = session.metadata;
  const paymentIntent = intentId(session.payment_intent);
  const now = deps.clock();
  const payment = await notePayment(deps.db, paymentIntent, { skillId, userId, sessionId: session.id });
  const purchase: PurchaseItem = {
    skillId,
    slug,
    userId,
    login,
    amount: fromStripeAmount(session.amount_total, session.currency),
    currency: session.currency.toUpperCase(),
    status: payment.refundedAt ? 'refunded' : disputeHolds(payment) ? 'disputed' : 'purchased',
    sessionId: session.id,
    paymentIntent,
    eventId: event.id,
    purchasedAt: now.toISOString(),
    refundedAt: payment.refundedAt ?? null,
  };
  if (!(await recordPurchase(deps.db, purchase))) return 'duplicate';
  const after = await getPayment(deps.db, paymentIntent);
  if (purchase.status !== 'refunded' && after?.refundedAt) await markRefunded(deps.db, skillId, userId, session.id, new Date(after.refundedAt));
  else if (disputeHolds(after) !== (purchase.status === 'disputed')) await setDisputed(deps.db, skillId, userId, session.id, disputeHolds(after));
  deps.log.info('purchase recorded', { skillId, userId, eventId: event.id });
  return 'granted';
}

/** A fully refunded charge revokes its purchase. A partial refund leaves the buyer's access as it is. */
async function revokePurchase(deps: WebhookPorts, event: StripeEvent): Promise<WebhookOutcome> {
  const parsed = refundedChargeSchema.safeParse(event.object);
  if (!parsed.success || !parsed.data.refunded || !parsed.data.payment_intent) return 'ignored';
  const payment = await noteRefund(deps.db, intentId(parsed.data.payment_intent), deps.clock());
  // A payment not seen yet keeps the refund, and its purchase is recorded refunded when it comes.
  if (!payment.skillId || !payment.userId || !payment.sessionId) return 'ignored';
  await markRefunded(deps.db, payment.skillId, payment.userId, payment.sessionId, new Date(payment.refundedAt!));
  deps.log.info('purchase refunded', { skillId: payment.skillId, userId: payment.userId, eventId: event.id });
  return 'revoked';
}

/**
 * A dispute of a purchase's charge (a chargeback): while it is open the buyer's access is paused
 * (deliveries and their download tokens answer 402, as after a refund); a dispute the seller wins
 * (or that closes as a warning) gives it back, and one the seller loses ends it. A refund in the
 * meantime stays a refund.
 */
async function disputePurchase(deps: WebhookPorts, event: StripeEvent): Promise<WebhookOutcome> {
  const parsed = disputeSchema.safeParse(event.object);
  if (!parsed.success || !parsed.data.payment_intent) return 'ignored';
  const payment = await noteDispute(deps.db, intentId(parsed.data.payment_intent), disputeState(parsed.data.status));
  // A payment not seen yet keeps the dispute, and its purchase is recorded disputed when it comes.
  if (!payment.skillId || !payment.userId || !payment.sessionId) return 'ignored';
  const holds = disputeHolds(payment);
  if (!(await setDisputed(deps.db, payment.skillId, payment.userId, payment.sessionId, holds))) return 'ignored';
  deps.log.info(holds ? 'purchase disputed' : 'purchase dispute won', { skillId: payment.skillId, userId: payment.userId, eventId: event.id });
  return holds ? (payment.dispute === 'lost' ? 'revoked' : 'suspended') : 'restored';
}
