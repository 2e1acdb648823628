import * as z from 'zod/mini';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { APPEAL_KINDS, APPEAL_STATES, type AppealState } from '#core/appeals';
import { SCOPES } from '#core/policy';
import { scanResultSchema } from '#core/scan/scan-result-schema';
import { type Db, getItems, parseItem, queryOwned, writeIf } from './db.ts';
import { appealKey, appealQueueKey, pendingAppealsKey, prefix } from './keys.ts';
import { storedFileSchema } from './skills.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * Appeals (docs/api.md §7.15): `APPEAL#<id>/APPEAL`, in the GSI partition `APPEALS#<author>` for
 * the author's list, and while pending named by an item of the admins' queue
 * (`APPEALQUEUE/<createdAt>#<id>`, read consistently, oldest first). The item holds what the
 * appeal would publish except the files' bytes, which wait in the private content bucket under
 * their SHA-256, reachable from nothing public.
 */

const appealItemSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    userId: z.string(),
    login: z.string(),
    kind: z.enum(APPEAL_KINDS),
    status: z.enum(APPEAL_STATES),
    slug: z.string(),
    version: z.string(),
    /** A version's skill; a new skill's, once approved. */
    skillId: z.optional(z.string()),
    /** A new skill published into an organisation. */
    owner: z.optional(z.string()),
    paid: z.boolean(),
    message: z.string(),
    createdAt: z.string(),
    /** The credential the appeal was filed with: approving publishes with what it allowed, no more. */
    credential: z.object({
      kind: z.enum(['session', 'api-key', 'publish-token']),
      scopes: z.array(z.enum(SCOPES)),
      org: z.optional(z.string()),
      skills: z.optional(z.array(z.string())),
    }),
    /** The publish body without its files (they are `files`), as the route validated it. */
    request: z.record(z.string(), z.unknown()),
    files: z.array(storedFileSchema),
    scan: scanResultSchema,
    decidedAt: z.optional(z.string()),
    decidedBy: z.optional(z.string()),
    reason: z.optional(z.string()),
    /** Whether it holds a place in its author's count of pending appeals (appeals filed before the count did not). */
    counted: z.optional(z.boolean()),
  }),
);
export type AppealItem = z.output<typeof appealItemSchema>;

/**
 * Takes a place among `userId`'s pending appeals, in one conditional write on their counter: false
 * when `cap` are pending already, however many appeals are sent at once. Without a cap (an
 * approval that failed, its appeal pending again) the place is taken whatever the count.
 */
export async function takePendingPlace(db: Db, userId: string, cap?: number): Promise<boolean> {
  return writeIf(
    db,
    new UpdateCommand({
      TableName: db.table,
      Key: pendingAppealsKey(userId),
      UpdateExpression: 'SET #pending = if_not_exists(#pending, :zero) + :one',
      ...(cap === undefined ? {} : { ConditionExpression: 'attribute_not_exists(#pending) OR #pending < :cap' }),
      ExpressionAttributeNames: { '#pending': 'pending' },
      ExpressionAttributeValues: { ':zero': 0, ':one': 1, ...(cap === undefined ? {} : { ':cap': cap }) },
    }),
  );
}

/**
 * Gives a place back: its appeal was decided, or never stored. The last place given back removes
 * the counter, so a refused appeal leaves the store as it found it. Each step is conditional on
 * the count it acts on; one that lost a race is tried again on the count as it is then.
 */
export async function returnPendingPlace(db: Db, userId: string): Promise<void> {
  const names = { '#pending': 'pending' };
  for (let attempt = 0; attempt < 5; attempt++) {
    const removed = await writeIf(
      db,
      new DeleteCommand({
        TableName: db.table,
        Key: pendingAppealsKey(userId),
        ConditionExpression: '#pending <= :one',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    if (removed) return;
    const lowered = await writeIf(
      db,
      new UpdateCommand({
        TableName: db.table,
        Key: pendingAppealsKey(userId),
        UpdateExpression: 'SET #pending = #pending - :one',
        ConditionExpression: '#pending > :one',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    if (lowered) return;
  }
}

/** Stores a pending appeal and puts it in the admins' queue. */
export async function putAppeal(db: Db, appeal: AppealItem): Promise<void> {
  await db.doc.send(
    new PutCommand({
      TableName: db.table,
      Item: { ...appealKey(appeal.id), ...appeal, gsi1pk: prefix.appealsOf + appeal.userId, gsi1sk: `${appeal.createdAt}#${appeal.id}` },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  try {
    await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...appealQueueKey(appeal.createdAt, appeal.id), id: appeal.id } }));
  } catch (error) {
    // Not queued, it would wait for no one: the appeal is undone, and the author may send it again.
    await db.doc.send(new DeleteCommand({ TableName: db.table, Key: appealKey(appeal.id) })).catch(() => undefined);
    throw error;
  }
}

export async function getAppeal(db: Db, id: string): Promise<AppealItem | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: appealKey(id), ConsistentRead: true }));
  return Item && toAppealItem(Item);
}

/** An author's appeals, newest first (the GSI is eventually consistent). */
export async function listAppealsOf(db: Db, userId: string): Promise<AppealItem[]> {
  return (await queryOwned(db, prefix.appealsOf + userId)).map(toAppealItem).reverse();
}

/** The pending appeals, oldest first: the queue, then the appeals it names, read consistently. */
export async function listPendingAppeals(db: Db): Promise<AppealItem[]> {
  const queued: { id: string; sk: string }[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.doc.send(
      new QueryCommand({
        TableName: db.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': prefix.appealQueue },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) queued.push({ id: String(item.id), sk: String(item.sk) });
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  const found = new Map(
    (
      await getItems(
        db,
        queued.map((q) => appealKey(q.id)),
      )
    ).map((raw) => [String(raw.id), toAppealItem(raw)]),
  );
  return queued.flatMap((q) => {
    const appeal = found.get(q.id);
    return appeal?.status === 'pending' ? [appeal] : [];
  });
}

/**
 * Moves a pending appeal to `approved` or `declined`, recording who and when (and, declined, why);
 * false when it is no longer pending (another admin decided first). The queue forgets it.
 */
export async function decideAppeal(
  db: Db,
  appeal: Pick<AppealItem, 'id' | 'createdAt' | 'userId' | 'counted'>,
  decision: { status: Exclude<AppealState, 'pending'>; by: string; at: string; reason?: string },
): Promise<boolean> {
  const decided = await writeIf(
    db,
    new UpdateCommand({
      TableName: db.table,
      Key: appealKey(appeal.id),
      UpdateExpression: `SET #status = :status, decidedAt = :at, decidedBy = :by${decision.reason === undefined ? '' : ', reason = :reason'}`,
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':status': decision.status,
        ':at': decision.at,
        ':by': decision.by,
        ':pending': 'pending',
        ...(decision.reason === undefined ? {} : { ':reason': decision.reason }),
      },
    }),
  );
  if (decided) {
    await db.doc.send(new DeleteCommand({ TableName: db.table, Key: appealQueueKey(appeal.createdAt, appeal.id) }));
    if (appeal.counted) await returnPendingPlace(db, appeal.userId);
  }
  return decided;
}

/** Records the skill an approved appeal created. */
export async function setAppealSkill(db: Db, id: string, skillId: string): Promise<void> {
  await db.doc.send(
    new UpdateCommand({ TableName: db.table, Key: appealKey(id), UpdateExpression: 'SET skillId = :skill', ExpressionAttributeValues: { ':skill': skillId } }),
  );
}

/**
 * Puts an approval back to pending when publishing what it approved failed (the slug was taken
 * meanwhile, the author lost the right to publish it): the admins see it again, with the error.
 */
export async function reopenAppeal(db: Db, appeal: Pick<AppealItem, 'id' | 'createdAt' | 'userId' | 'counted'>, by: string, at: string): Promise<void> {
  const reopened = await writeIf(
    db,
    new UpdateCommand({
      TableName: db.table,
      Key: appealKey(appeal.id),
      UpdateExpression: 'SET #status = :pending REMOVE decidedAt, decidedBy',
      ConditionExpression: '#status = :approved AND decidedBy = :by AND decidedAt = :at',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':pending': 'pending', ':approved': 'approved', ':by': by, ':at': at },
    }),
  );
  if (!reopened) return;
  await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...appealQueueKey(appeal.createdAt, appeal.id), id: appeal.id } }));
  if (appeal.counted) await takePendingPlace(db, appeal.userId);
}

function toAppealItem(raw: Record<string, unknown>): AppealItem {
  return parseItem(appealItemSchema, raw, 'appeal');
}
