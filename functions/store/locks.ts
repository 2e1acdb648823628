import * as z from 'zod/mini';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import { type Db, isConditionFailed, writeIf } from './db.ts';
import { lockKey } from './keys.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * A lease lock in the table, for read-modify-write of shared static files (the catalog) by
 * rebuilds that may run side by side on AWS. A holder renews its lease while its work runs, and
 * one that dies loses it when it expires.
 *
 * The lock item outlives its holders and carries a memo from one to the next: what the last
 * holder whose work succeeded left with `leave` (the rebuild leaves the ETags of the indexes it
 * wrote, so the next holder that wrote them itself need not ask the bucket whether they changed).
 * A holder whose work fails leaves none, and clears the one it found.
 */

export interface Lease {
  /** The memo of the previous holder, if its work succeeded. */
  previous?: Record<string, string>;
  /** Sets the memo stored with the release if the work succeeds. */
  leave(memo: Record<string, string>): void;
}

/**
 * The memo a taken lock's old item carries. Only a hint: one that does not read as a map of
 * strings is ignored (the new holder asks the bucket instead, and its release replaces it).
 */
const memoSchema = lazySchema(() => z.record(z.string(), z.string()));

const LEASE_MS = 30_000;
const WAIT_MS = 60_000;

export interface LockOptions {
  /** How long the lease lasts unless renewed: how long a dead holder keeps others out. */
  leaseMs?: number;
}

export async function withLock<T>(db: Db, name: string, work: (lease: Lease) => Promise<T>, { leaseMs = LEASE_MS }: LockOptions = {}): Promise<T> {
  const owner = randomBytes(12).toString('base64url');
  const deadline = Date.now() + WAIT_MS;
  let previous: Record<string, string> | undefined;
  for (let attempt = 0; ; attempt++) {
    const now = Date.now();
    try {
      const taken = await db.doc.send(
        new UpdateCommand({
          TableName: db.table,
          Key: lockKey(name),
          UpdateExpression: 'SET #o = :owner, leaseUntil = :until, expiresAt = :expires',
          ConditionExpression: 'attribute_not_exists(pk) OR leaseUntil < :now',
          ExpressionAttributeNames: { '#o': 'owner' },
          ExpressionAttributeValues: { ':owner': owner, ...leaseUntil(now, leaseMs), ':now': now },
          ReturnValues: 'ALL_OLD',
        }),
      );
      const memo = memoSchema.safeParse(taken.Attributes?.memo);
      previous = memo.success ? memo.data : undefined;
      break;
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
    if (Date.now() > deadline) throw new Error(`lock ${name}: still held after ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(200, 5 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random())));
  }
  let memo: Record<string, string> | undefined;
  let succeeded = false;
  // The lease is renewed while the work runs: a full rebuild at 10,000 skills holds the lock for
  // tens of seconds, and a lease that ran out midway would let another rebuilder patch the
  // indexes, which the full rebuild's own write would then undo. A renewal that finds another
  // owner (the lease ran out all the same) or fails changes nothing; the next one tries again.
  const renewal = setInterval(() => {
    const now = Date.now();
    void writeIf(
      db,
      new UpdateCommand({
        TableName: db.table,
        Key: lockKey(name),
        UpdateExpression: 'SET leaseUntil = :until, expiresAt = :expires',
        ConditionExpression: '#o = :owner',
        ExpressionAttributeNames: { '#o': 'owner' },
        ExpressionAttributeValues: { ':owner': owner, ...leaseUntil(now, leaseMs) },
      }),
    ).catch(() => {});
  }, leaseMs / 3);
  renewal.unref();
  try {
    const result = await work({ previous, leave: (m) => (memo = m) });
    succeeded = true;
    return result;
  } finally {
    clearInterval(renewal);
    const keep = succeeded && memo !== undefined && Object.keys(memo).length > 0;
    // False when our lease expired and someone else holds it now: theirs to release.
    await writeIf(
      db,
      new UpdateCommand({
        TableName: db.table,
        Key: lockKey(name),
        UpdateExpression: keep ? 'SET leaseUntil = :free, memo = :memo REMOVE #o' : 'SET leaseUntil = :free REMOVE #o, memo',
        ConditionExpression: '#o = :owner',
        ExpressionAttributeNames: { '#o': 'owner' },
        ExpressionAttributeValues: { ':owner': owner, ':free': 0, ...(keep ? { ':memo': memo } : {}) },
      }),
    );
  }
}

/** The lease's end, and when the table may delete the item (a day later: the memo outlives holders). */
function leaseUntil(now: number, leaseMs: number): { ':until': number; ':expires': number } {
  return { ':until': now + leaseMs, ':expires': Math.ceil((now + leaseMs) / 1000) + 86_400 };
}
