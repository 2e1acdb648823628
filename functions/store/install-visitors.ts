import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { AGENTS_PER_NETWORK, type VisitorHashes } from '#core/install-visitor';
import { type Db, isConditionFailed, parseItem, writeIf } from './db.ts';
import { countedRequestKey, installSecretKey, visitorKey } from './keys.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * What distinct installs remember (core/install-visitor.ts), all of it short-lived:
 * - the secret of each UTC day, made at random by whichever process needs it first (a
 *   conditional put, so every process agrees) and expiring two days later;
 * - per skill, day and network, the hashes of the user agents counted from that network
 *   (at most {@link AGENTS_PER_NETWORK}), expiring with the day's secret;
 * - the CDN requests already counted, so a log record delivered twice counts once.
 * Each is its own partition, so a popular skill's distinct clients spread over the table.
 */

/** How long a day's secret and hashes are kept: its day and the next (a delivery at 23:59:59 is counted after midnight). */
const KEEP_SECONDS = 2 * 24 * 60 * 60;
/** How long a counted CDN request is remembered: longer than a Kinesis record can be retried. */
const REQUEST_KEEP_SECONDS = 2 * 24 * 60 * 60;

const secretSchema = lazySchema(() => z.object({ secret: z.string(), expiresAt: z.number() }));

/** The secret of UTC day `day` (`yyyy-mm-dd`), made now if no process has made it yet. */
export async function daySecret(db: Db, day: string, now: Date): Promise<Uint8Array> {
  const key = installSecretKey(day);
  const read = async () => {
    const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: key, ConsistentRead: true }));
    return Item && Buffer.from(parseItem(secretSchema, Item, 'install secret').secret, 'base64');
  };
  const found = await read();
  if (found) return found;
  const secret = randomBytes(32);
  const made = await writeIf(
    db,
    new PutCommand({
      TableName: db.table,
      Item: { ...key, secret: secret.toString('base64'), expiresAt: Math.floor(now.getTime() / 1000) + KEEP_SECONDS },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  if (made) return secret;
  const other = await read();
  if (!other) throw new Error(`the install secret of ${day} vanished while it was being made`);
  return other;
}

/**
 * Records a client of `skillId` on `day`: true when it is a new one (counted as a distinct
 * install), false when its network already counted it, or already counted
 * {@link AGENTS_PER_NETWORK} user agents that day.
 */
export async function recordVisitor(db: Db, skillId: string, day: string, visitor: VisitorHashes, now: Date): Promise<boolean> {
  try {
    await db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: visitorKey(skillId, day, visitor.network),
        UpdateExpression: 'ADD agents :agent SET expiresAt = if_not_exists(expiresAt, :expires)',
        ConditionExpression: 'attribute_not_exists(agents) OR (size(agents) < :most AND NOT contains(agents, :one))',
        ExpressionAttributeValues: {
          ':agent': new Set([visitor.agent]),
          ':one': visitor.agent,
          ':most': AGENTS_PER_NETWORK,
          ':expires': Math.floor(now.getTime() / 1000) + KEEP_SECONDS,
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

/** Marks a CDN request as counted: true the first time, false for a record seen before. */
export function markRequestCounted(db: Db, requestId: string, now: Date): Promise<boolean> {
  return writeIf(
    db,
    new PutCommand({
      TableName: db.table,
      Item: { ...countedRequestKey(requestId), expiresAt: Math.floor(now.getTime() / 1000) + REQUEST_KEEP_SECONDS },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}
