import * as z from 'zod/mini';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Db, parseItem, queryAll, queryOwned, writeIf } from './db.ts';
import { paymentKey, prefix, purchaseKey, sortPrefix } from './keys.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * Purchases of paid skills, recorded from Stripe's webhook. One item per Checkout Session in the
 * skill's partition (`PURCHASE#<skill>` / `BUYER#<user>#<session>`), so an author's sales are one
 * Query, a buyer's access is one consistent Query of their own sort-key prefix, and a buyer's
 * purchases are a GSI partition. Recording is a put conditional on the item not existing: of
 * Stripe's retries and concurrent deliveries of one session's event, exactly one records it.
 *
 * A refund or a dispute names a PaymentIntent, not a session, so each payment also has an item
 * (`PAYMENT#<payment intent>`) saying which purchase it paid for, whether it was refunded and how
 * a dispute of it stands. Every handler writes that item before it reads the other side, so a
 * refund or dispute whose event arrives before, or at the same time as, its purchase still
 * applies to it.
 */

const buyerPartition = (userId: string) => prefix.purchasesOf + userId;

const purchaseItemSchema = lazySchema(() =>
  z.object({
    skillId: z.string(),
    slug: z.string(),
    userId: z.string(),
    login: z.string(),
    amount: z.number(),
    currency: z.string(),
    status: z.enum(['purchased', 'refunded', 'disputed']),
    sessionId: z.string(),
    paymentIntent: z.string(),
    /** The Stripe event that recorded it. */
    eventId: z.string(),
    purchasedAt: z.string(),
    refundedAt: z.pipe(
      z.nullish(z.string()),
      z.transform((v) => v ?? null),
    ),
  }),
);
export type PurchaseItem = z.output<typeof purchaseItemSchema>;

/** Records a completed purchase; false when this session's purchase was already recorded. */
export function recordPurchase(db: Db, purchase: PurchaseItem): Promise<boolean> {
  return writeIf(
    db,
    new PutCommand({
      TableName: db.table,
      Item: {
        ...purchaseKey(purchase.skillId, purchase.userId, purchase.sessionId),
        ...purchase,
        // Absent rather than null, so that marking a refund can say if_not_exists(refundedAt).
        refundedAt: purchase.refundedAt ?? undefined,
        gsi1pk: buyerPartition(purchase.userId),
        gsi1sk: `${purchase.purchasedAt}#${purchase.sessionId}`,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** Marks a recorded purchase refunded (keeping the first refund's time); false when there is none. */
export function markRefunded(db: Db, skillId: string, userId: string, sessionId: string, at: Date): Promise<boolean> {
  return writeIf(
    db,
    new UpdateCommand({
      TableName: db.table,
      Key: purchaseKey(skillId, userId, sessionId),
      UpdateExpression: 'SET #status = :refunded, refundedAt = if_not_exists(refundedAt, :at)',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':refunded': 'refunded', ':at': at.toISOString() },
    }),
  );
}

/**
 * Sets a recorded purchase's standing after a dispute of its charge: `disputed` while it is open
 * or once lost, `purchased` again once won. A refunded purchase stays refunded. False when there
 * is no such purchase, or it was refunded.
 */
export function setDisputed(db: Db, skillId: string, userId: string, sessionId: string, disputed: boolean): Promise<boolean> {
  return writeIf(
    db,
    new UpdateCommand({
      TableName: db.table,
      Key: purchaseKey(skillId, userId, sessionId),
      UpdateExpression: 'SET #status = :status',
      ConditionExpression: 'attribute_exists(pk) AND #status <> :refunded',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':status': disputed ? 'disputed' : 'purchased', ':refunded': 'refunded' },
    }),
  );
}

/** Whether `userId` holds a purchase of `skillId` that was neither refunded nor disputed: one consistent Query. */
export async function hasPurchase(db: Db, skillId: string, userId: string): Promise<boolean> {
  const items = await queryAll(db, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :buyer)',
    FilterExpression: '#status = :purchased',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':pk': prefix.purchase + skillId, ':buyer': `${sortPrefix.buyer}${userId}#`, ':purchased': 'purchased' },
    ConsistentRead: true,
  });
  return items.length > 0;
}

/** Every purchase of the skill, for its author's sales. */
export async function listSales(db: Db, skillId: string): Promise<PurchaseItem[]> {
  const items = await queryAll(db, { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': prefix.purchase + skillId } });
  return items.map(toPurchaseItem);
}

/** Every purchase the user made, oldest first (the index's order). */
export async function listPurchasesOf(db: Db, userId: string): Promise<PurchaseItem[]> {
  return (await queryOwned(db, buyerPartition(userId))).map(toPurchaseItem);
}

const paymentItemSchema = lazySchema(() =>
  z.object({
    skillId: z.optional(z.string()),
    userId: z.optional(z.string()),
    sessionId: z.optional(z.string()),
    refundedAt: z.optional(z.string()),
    dispute: z.optional(z.enum(['open', 'won', 'lost'])),
  }),
);
/** What is known of one payment: the purchase it paid for (once seen), its refund and its dispute (once seen). */
export type PaymentItem = z.output<typeof paymentItemSchema>;

/** Notes which purchase a payment paid for; returns what is known of the payment afterwards. */
export async function notePayment(db: Db, paymentIntent: string, purchase: { skillId: string; userId: string; sessionId: string }): Promise<PaymentItem> {
  return updatePayment(db, paymentIntent, 'SET skillId = :skill, userId = :user, sessionId = :session', {
    ':skill': purchase.skillId,
    ':user': purchase.userId,
    ':session': purchase.sessionId,
  });
}

/** Notes that a payment was refunded (the first time counts); returns what is known of it afterwards. */
export async function noteRefund(db: Db, paymentIntent: string, at: Date): Promise<PaymentItem> {
  return updatePayment(db, paymentIntent, 'SET refundedAt = if_not_exists(refundedAt, :at)', { ':at': at.toISOString() });
}

/**
 * Notes how a dispute of a payment stands. An opened dispute never replaces a closed one's outcome
 * (Stripe may deliver the events out of order); a closed one's outcome is final.
 */
export async function noteDispute(db: Db, paymentIntent: string, state: 'open' | 'won' | 'lost'): Promise<PaymentItem> {
  return state === 'open'
    ? updatePayment(db, paymentIntent, 'SET dispute = if_not_exists(dispute, :state)', { ':state': state })
    : updatePayment(db, paymentIntent, 'SET dispute = :state', { ':state': state });
}

/** Whether a payment's dispute keeps its purchase from its buyer: open, or lost. */
export const disputeHolds = (payment: PaymentItem | undefined): boolean => payment?.dispute === 'open' || payment?.dispute === 'lost';

/** What is known of a payment now, read consistently. */
export async function getPayment(db: Db, paymentIntent: string): Promise<PaymentItem | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: paymentKey(paymentIntent), ConsistentRead: true }));
  return Item && parseItem(paymentItemSchema, Item, 'payment');
}

async function updatePayment(db: Db, paymentIntent: string, UpdateExpression: string, values: Record<string, string>): Promise<PaymentItem> {
  const { Attributes } = await db.doc.send(
    new UpdateCommand({ TableName: db.table, Key: paymentKey(paymentIntent), UpdateExpression, ExpressionAttributeValues: values, ReturnValues: 'ALL_NEW' }),
  );
  return parseItem(paymentItemSchema, Attributes!, 'payment');
}

function toPurchaseItem(raw: Record<string, unknown>): PurchaseItem {
  return parseItem(purchaseItemSchema, raw, 'purchase');
}
