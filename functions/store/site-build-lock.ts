import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Db, writeIf } from './db.ts';
import { lockKey } from './keys.ts';

/**
 * The site-build window: one item that says until when the last site build's window runs, and
 * whether changes arrived during it. Unlike the lease locks of `locks.ts` it is never released
 * early: it throttles, it does not guard a critical section. Every rebuild Lambda (one per stream shard) races for it
 * with a conditional write, so at most one build is dispatched per window without a
 * transaction or a coordinator.
 */

export const siteBuildLockKey = lockKey('site-build');

// Long enough that `pending` outlives any gap between scheduled flushes; TTL only tidies up.
const KEEP_SECONDS = 7 * 24 * 3600;

export interface SiteBuildLock {
  /** Epoch ms; no new build is dispatched before it. */
  windowEndsAt: number;
  /** A build was asked for inside the window and is still owed. */
  pending: boolean;
}

/**
 * Opens a new window ending at `now + intervalMs` if the previous one has ended. True when this
 * caller won it and should dispatch; false when a build already ran within the interval.
 */
export async function claimWindow(db: Db, now: Date, intervalMs: number): Promise<{ claimed: true; windowEndsAt: number } | { claimed: false }> {
  const windowEndsAt = now.getTime() + intervalMs;
  const claimed = await writeIf(
    db,
    new UpdateCommand({
      TableName: db.table,
      Key: siteBuildLockKey,
      UpdateExpression: 'SET windowEndsAt = :end, pending = :false, expiresAt = :ttl',
      ConditionExpression: 'attribute_not_exists(pk) OR windowEndsAt <= :now',
      ExpressionAttributeValues: { ':end': windowEndsAt, ':false': false, ':now': now.getTime(), ':ttl': Math.ceil(windowEndsAt / 1000) + KEEP_SECONDS },
    }),
  );
  return claimed ? { claimed, windowEndsAt } : { claimed };
}

/** Records that a build is owed, for the scheduled flush to dispatch once the window ends. */
export async function markPending(db: Db): Promise<void> {
  await db.doc.send(
    new UpdateCommand({
      TableName: db.table,
      Key: siteBuildLockKey,
      UpdateExpression: 'SET pending = :true',
      ExpressionAttributeValues: { ':true': true },
    }),
  );
}

/**
 * Gives back a window whose dispatch failed, so the next batch or flush tries again at once, and
 * keeps the build owed. Only the window this caller opened is given back.
 */
export async function releaseWindow(db: Db, windowEndsAt: number): Promise<void> {
  await writeIf(
    db,
    new UpdateCommand({
      TableName: db.table,
      Key: siteBuildLockKey,
      UpdateExpression: 'SET windowEndsAt = :zero, pending = :true',
      ConditionExpression: 'windowEndsAt = :mine',
      ExpressionAttributeValues: { ':zero': 0, ':true': true, ':mine': windowEndsAt },
    }),
  );
}

export async function readLock(db: Db): Promise<SiteBuildLock | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: siteBuildLockKey, ConsistentRead: true }));
  if (!Item) return undefined;
  return { windowEndsAt: Number(Item.windowEndsAt ?? 0), pending: Item.pending === true };
}
