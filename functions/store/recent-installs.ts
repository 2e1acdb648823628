import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Db, getItems } from './db.ts';
import { recentInstallsKey } from './keys.ts';

/**
 * Which skills were installed lately, so the 5-minute refresh of the public counts reads only
 * theirs (services/public-installs.ts) instead of scanning the table. After each round of counter
 * writes, the counter adds the round's skills to the item of the current 5-minute window
 * (`INSTALLED#<window>#<n>`, one of {@link MARK_SHARDS} at random, so a busy window is no hot
 * item); the items expire after a day.
 */

export const WINDOW_MS = 5 * 60 * 1000;
const MARK_SHARDS = 10;
const KEEP_SECONDS = 24 * 60 * 60;

const windowOf = (at: number) => Math.floor(at / WINDOW_MS);

/** Records that `skillIds` had installs written at `now`. */
export async function markInstalled(db: Db, skillIds: readonly string[], now: number): Promise<void> {
  if (skillIds.length === 0) return;
  await db.doc.send(
    new UpdateCommand({
      TableName: db.table,
      Key: recentInstallsKey(windowOf(now), Math.floor(Math.random() * MARK_SHARDS)),
      UpdateExpression: 'ADD skills :ids SET expiresAt = if_not_exists(expiresAt, :expires)',
      ExpressionAttributeValues: { ':ids': new Set(skillIds), ':expires': Math.floor(now / 1000) + KEEP_SECONDS },
    }),
  );
}

/** The skills with installs written from `since` to `now` (whole windows: a few more, never fewer). */
export async function installedSince(db: Db, since: number, now: number): Promise<Set<string>> {
  const keys = [];
  for (let window = windowOf(since); window <= windowOf(now); window++)
    for (let shard = 0; shard < MARK_SHARDS; shard++) keys.push(recentInstallsKey(window, shard));
  const ids = new Set<string>();
  for (const item of await getItems(db, keys)) if (item.skills instanceof Set) for (const id of item.skills) if (typeof id === 'string') ids.add(id);
  return ids;
}
