import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { RateLimitedError } from '#core/errors';
import { type Db, writeIf } from './db.ts';

/**
 * A rolling-window limiter per author: one item holds the timestamps of the window's publishes
 * and a revision number; every change is a conditional put on the revision it read, so a burst
 * of concurrent requests admits exactly `limit` of them.
 */

export const rateLimitKey = (userId: string) => ({ pk: `RL#${userId}`, sk: 'PUBLISH' });

const MAX_ATTEMPTS = 64;

export interface Window {
  limit: number;
  windowMs: number;
}

export interface SlotTaken {
  stamp: number;
  remaining: number;
  resetSeconds: number;
}

export async function takePublishSlot(db: Db, userId: string, now: Date, window: Window): Promise<SlotTaken> {
  const at = now.getTime();
  return mutate(db, userId, window, (live) => {
    if (live.length >= window.limit) {
      const retryAfter = Math.max(1, Math.ceil((live[0]! + window.windowMs - at) / 1000));
      throw new RateLimitedError(window.limit, window.windowMs / 1000, retryAfter);
    }
    const stamps = [...live, at];
    return {
      stamps,
      result: { stamp: at, remaining: window.limit - stamps.length, resetSeconds: Math.ceil((stamps[0]! + window.windowMs - at) / 1000) },
    };
  }, at);
}

/** Gives back a slot taken by a publish that then failed, so rejected requests cost nothing. */
export async function returnPublishSlot(db: Db, userId: string, stamp: number, window: Window): Promise<void> {
  await mutate(db, userId, window, (live) => {
    const index = live.indexOf(stamp);
    return { stamps: index < 0 ? live : live.filter((_, i) => i !== index), result: undefined };
  }, Date.now());
}

async function mutate<T>(
  db: Db,
  userId: string,
  window: Window,
  change: (live: number[]) => { stamps: number[]; result: T },
  at: number,
): Promise<T> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: rateLimitKey(userId), ConsistentRead: true }));
    const revision = (Item?.revision as number | undefined) ?? 0;
    const live = ((Item?.stamps as number[] | undefined) ?? []).filter((t) => t > at - window.windowMs).sort((a, b) => a - b);
    const { stamps, result } = change(live);
    const written = await writeIf(
      db,
      new PutCommand({
        TableName: db.table,
        Item: { ...rateLimitKey(userId), stamps, revision: revision + 1, expiresAt: Math.ceil((at + window.windowMs) / 1000) + 60 },
        ConditionExpression: Item ? 'revision = :revision' : 'attribute_not_exists(pk)',
        ExpressionAttributeValues: Item ? { ':revision': revision } : undefined,
      }),
    );
    if (written) return result;
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (attempt + 1)));
  }
  // Sustained contention on one author's window: ask the client to come back shortly.
  throw new RateLimitedError(window.limit, window.windowMs / 1000, 1);
}
