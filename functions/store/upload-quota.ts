import { GetCommand, PutCommand, type PutCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { RateLimitedError } from '#core/errors';
import { type Db, writeIf } from './db.ts';
import { rateLimitKey } from './keys.ts';
import { oneAtATime } from './one-at-a-time.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * What one account holds sent ahead of a ClawHub publish and not yet published (docs/api.md
 * §14.3): the distinct files announced, each with its size and when its last ticket expires. An
 * announcement past the quota's files or bytes (`limits.clawhubUploads`) is refused (`429`, until the
 * oldest expires); a publish gives back the room of the files it took. The same bytes announced
 * again take no more room. One item per account, beside its rate windows, changed by a
 * conditional put on the revision it read.
 */

const MAX_ATTEMPTS = 64;

const heldSchema = lazySchema(() => z.object({ sha256: z.string(), size: z.number(), expiresAt: z.number() }));
const quotaSchema = lazySchema(() => z.object({ revision: z.number(), files: z.array(heldSchema) }));
type Held = z.output<typeof heldSchema>;

/** Changes to one account's quota, one at a time per process. */
const queues = new WeakMap<Db, Map<string, Promise<unknown>>>();

/** Holds room for `file` until `expiresAt` (epoch seconds), or throws 429 `rate_limited` when the account has none left within `quota`. */
export async function reserveUpload(
  db: Db,
  userId: string,
  file: { sha256: string; size: number },
  expiresAt: number,
  now: Date,
  quota: { files: number; bytes: number },
): Promise<void> {
  const { files: maxFiles, bytes: maxBytes } = quota;
  await change(db, userId, now, (live) => {
    const same = live.find((held) => held.sha256 === file.sha256);
    if (same) return live.map((held) => (held === same ? { ...held, expiresAt: Math.max(held.expiresAt, expiresAt) } : held));
    const bytes = live.reduce((sum, held) => sum + held.size, 0);
    if (live.length + 1 > maxFiles || bytes + file.size > maxBytes) {
      // Room frees as the oldest announcements expire (or at once, when a publish takes them).
      const retryAfter = Math.max(1, Math.min(...live.map((held) => held.expiresAt)) - Math.floor(now.getTime() / 1000));
      throw new RateLimitedError(
        retryAfter,
        `This account holds ${live.length} files (${bytes} bytes) sent ahead and not published; at most ${maxFiles} files or ${maxBytes} bytes: publish them, or retry in ${retryAfter} s`,
      );
    }
    return [...live, { sha256: file.sha256, size: file.size, expiresAt }];
  });
}

/** Gives back the room of `sha256s`, which a publish of the account's has just taken. */
export async function releaseUploads(db: Db, userId: string, sha256s: readonly string[], now: Date): Promise<void> {
  const taken = new Set(sha256s);
  await change(db, userId, now, (live) => live.filter((held) => !taken.has(held.sha256)));
}

async function change(db: Db, userId: string, now: Date, next: (live: Held[]) => Held[]): Promise<void> {
  let perDb = queues.get(db);
  if (!perDb) {
    perDb = new Map();
    queues.set(db, perDb);
  }
  const key = rateLimitKey(userId, 'UPLOADS');
  const at = Math.floor(now.getTime() / 1000);
  await oneAtATime(perDb, key.pk, async () => {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: key, ConsistentRead: true }));
      const stored = Item ? quotaSchema.safeParse(Item) : undefined;
      const revision = stored?.success ? stored.data.revision : 0;
      const files = next((stored?.success ? stored.data.files : []).filter((held) => held.expiresAt > at));
      const written = await writeIf(
        db,
        new PutCommand({
          TableName: db.table,
          Item: { ...key, revision: revision + 1, files, expiresAt: Math.max(at, ...files.map((held) => held.expiresAt)) + 60 },
          ...condition(Item === undefined ? undefined : stored?.success ? revision : 'damaged'),
        }),
      );
      if (written) return;
      // Another process changed it since: read it again, after a pause.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (attempt + 1)));
    }
    throw new RateLimitedError(1, 'Too many files sent ahead by this account at once; retry in 1 s');
  });
}

/** What a write holds on: the revision read, that there was no item, or nothing over a damaged one (it counts as empty). */
function condition(read: number | 'damaged' | undefined): Pick<PutCommandInput, 'ConditionExpression' | 'ExpressionAttributeValues'> {
  if (read === 'damaged') return {};
  if (read === undefined) return { ConditionExpression: 'attribute_not_exists(pk)' };
  return { ConditionExpression: 'revision = :revision', ExpressionAttributeValues: { ':revision': read } };
}
