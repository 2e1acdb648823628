import * as z from 'zod/mini';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { notFound } from '#core/errors';
import type { TokenEntitlement, TokenFacts } from '#core/paid-access';
import { hashSecret, newId, newSecret } from '../platform/secrets.ts';
import { type Db, parseItem, queryOwned, writeIf } from './db.ts';
import { downloadTokenKey, prefix } from './keys.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * Download tokens for paid skills. The item is keyed by the token's SHA-256, so checking a token
 * is one consistent read and the table never holds a usable secret. Each token is bound to one
 * skill; the skill's listing reads a GSI partition whose sort key is the token id, so revoking
 * by id is an exact key lookup, not a scan of the skill's tokens.
 */

const skillPartition = (skillId: string) => prefix.downloadTokensOf + skillId;

export const DOWNLOAD_TOKEN_PREFIX = 'dt_';
/** Token ids are 16 characters; a longer one names nothing and must not reach DynamoDB's key limit. */
const MAX_ID_CHARS = 64;

const downloadTokenItemSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    skillId: z.string(),
    createdBy: z.string(),
    createdAt: z.string(),
    /** Epoch seconds, also the table's TTL attribute. */
    expiresAt: z.number(),
    maxUses: z.pipe(
      z.nullish(z.number()),
      z.transform((v) => v ?? null),
    ),
    uses: z._default(z.number(), 0),
    lastUsedAt: z.pipe(
      z.nullish(z.string()),
      z.transform((v) => v ?? null),
    ),
    /** Absent on the tokens an author issues; present on those an entitled user minted for themselves. */
    entitlement: z.optional(z.object({ userId: z.string(), via: z.enum(['grant', 'purchase', 'member']) })),
  }),
);
export type DownloadTokenItem = z.output<typeof downloadTokenItemSchema> & TokenFacts;

export interface CreatedDownloadToken {
  id: string;
  token: string;
  expiresAt: string;
  maxUses: number | null;
}

export interface NewToken {
  skillId: string;
  createdBy: string;
  expiresInSeconds: number;
  maxUses?: number;
  /** The grant or purchase the token stands for, when its holder is not the author. */
  entitlement?: TokenEntitlement;
}

/** Issues a token for one skill; the secret is in the result only, the table keeps its hash. */
export async function createDownloadToken(db: Db, input: NewToken, now: Date): Promise<CreatedDownloadToken> {
  const token = newSecret(DOWNLOAD_TOKEN_PREFIX);
  const id = newId();
  const createdAt = now.toISOString();
  // Epoch seconds: the TTL attribute's unit. Code checks it too, since TTL deletion is lazy.
  const expiresAt = Math.floor(now.getTime() / 1000) + input.expiresInSeconds;
  await db.doc.send(
    new PutCommand({
      TableName: db.table,
      Item: {
        ...downloadTokenKey(hashSecret(token)),
        id,
        skillId: input.skillId,
        createdBy: input.createdBy,
        createdAt,
        expiresAt,
        // Absent rather than null, so the use condition can say attribute_not_exists(maxUses).
        maxUses: input.maxUses,
        uses: 0,
        entitlement: input.entitlement,
        gsi1pk: skillPartition(input.skillId),
        gsi1sk: id,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return { id, token, expiresAt: new Date(expiresAt * 1000).toISOString(), maxUses: input.maxUses ?? null };
}

/** The stored record of a presented token, or undefined when no such token exists. */
export async function findDownloadToken(db: Db, token: string): Promise<DownloadTokenItem | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: downloadTokenKey(hashSecret(token)), ConsistentRead: true }));
  return Item ? toTokenItem(Item) : undefined;
}

/**
 * Spends one use of `token` for `skillId`, atomically: the condition re-checks the binding, the
 * expiry and the use limit in the same write that counts the use, so N concurrent deliveries
 * of a token with `maxUses: 3` spend exactly 3. Returns false when the token no longer allows it.
 */
export function spendDownloadToken(db: Db, token: string, skillId: string, now: Date): Promise<boolean> {
  return updateIf(db, token, {
    UpdateExpression: 'SET lastUsedAt = :iso ADD uses :one',
    ConditionExpression: 'skillId = :skill AND expiresAt > :now AND (attribute_not_exists(maxUses) OR uses < maxUses)',
    ExpressionAttributeValues: { ':iso': now.toISOString(), ':one': 1, ':skill': skillId, ':now': now.getTime() / 1000 },
  });
}

function updateIf(
  db: Db,
  token: string,
  update: { UpdateExpression: string; ConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> },
): Promise<boolean> {
  return writeIf(db, new UpdateCommand({ TableName: db.table, Key: downloadTokenKey(hashSecret(token)), ...update }));
}

/** Every token of the skill, live or not, without their secrets. */
export async function listDownloadTokens(db: Db, skillId: string): Promise<DownloadTokenItem[]> {
  return (await queryOwned(db, skillPartition(skillId))).map(toTokenItem);
}

/** Deletes the skill's token `id`; it stops working at once. A token of another skill is unknown. */
export async function revokeDownloadToken(db: Db, skillId: string, id: string): Promise<void> {
  const [found] = id.length > MAX_ID_CHARS ? [] : await queryOwned(db, skillPartition(skillId), id);
  if (!found) throw notFound('No such download token');
  await db.doc.send(new DeleteCommand({ TableName: db.table, Key: { pk: found.pk, sk: found.sk } }));
}

function toTokenItem(raw: Record<string, unknown>): DownloadTokenItem {
  return parseItem(downloadTokenItemSchema, raw, 'download token');
}
