import * as z from 'zod/mini';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { notFound } from '#core/errors';
import { SCOPES, type Scope } from '#core/policy';
import { hashSecret, newId, newSecret } from '../platform/secrets.ts';
import { BoundedCache } from '#core/bounded-cache';
import { type Db, getItems, isConditionFailed, parseItem, queryAll, tableKeys, writeIf } from './db.ts';
import { getUser, toUserItem, type UserItem } from './users.ts';
import { apiKeyKey, prefix, userKey } from './keys.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * API keys. The item is keyed by the key's SHA-256 so authentication is one consistent read and
 * a revoked key fails at once; the owner's listing reads a GSI partition per user.
 */

const ownerPartition = (userId: string) => prefix.apiKeysOf + userId;

export const API_KEY_PREFIX = 'sk_';
/** How much of a key the owner sees again in listings, to tell keys apart. */
const VISIBLE_PREFIX_CHARS = 7;
/** lastUsedAt is a hint, not an audit log: refresh it at most once a minute per key. */
const LAST_USED_GRANULARITY_MS = 60_000;

const apiKeyItemSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    userId: z.string(),
    name: z.string(),
    prefix: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.pipe(
      z.nullish(z.string()),
      z.transform((v) => v ?? null),
    ),
    /** What the key may be used for; absent on a key created without scopes (everything, as keys always could). */
    scopes: z.optional(z.array(z.enum(SCOPES))),
    /** Narrowed to this organisation (its login as the key was created). */
    org: z.optional(z.string()),
    /** Narrowed to these skills (ids). */
    skills: z.optional(z.array(z.string())),
    /**
     * When the key stops working (ISO 8601). A string, so the table's TTL (which reads numbers)
     * never deletes it: an expired key answers `expired_key`, and stays in its owner's list.
     */
    expiresAt: z.optional(z.string()),
  }),
);
export type ApiKeyItem = z.output<typeof apiKeyItemSchema>;

/** What a new key is limited to, beyond its owner's own rights. */
export interface KeyLimits {
  scopes?: Scope[];
  org?: string;
  skills?: string[];
  expiresAt?: string;
}

export interface CreatedApiKey {
  id: string;
  key: string;
  name: string;
  prefix: string;
  createdAt: string;
  item: ApiKeyItem;
}

export async function createApiKey(db: Db, userId: string, name: string, now: Date, keyLimits: KeyLimits = {}): Promise<CreatedApiKey> {
  const key = newSecret(API_KEY_PREFIX);
  const item: ApiKeyItem = {
    id: newId(),
    userId,
    name,
    prefix: key.slice(0, VISIBLE_PREFIX_CHARS),
    createdAt: now.toISOString(),
    lastUsedAt: null,
    ...(keyLimits.scopes ? { scopes: keyLimits.scopes } : {}),
    ...(keyLimits.org === undefined ? {} : { org: keyLimits.org }),
    ...(keyLimits.skills ? { skills: keyLimits.skills } : {}),
    ...(keyLimits.expiresAt === undefined ? {} : { expiresAt: keyLimits.expiresAt }),
  };
  await db.doc.send(
    new PutCommand({
      TableName: db.table,
      Item: { ...apiKeyKey(hashSecret(key)), ...item, gsi1pk: ownerPartition(userId), gsi1sk: `${item.createdAt}#${item.id}` },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return { id: item.id, key, name: item.name, prefix: item.prefix, createdAt: item.createdAt, item };
}

/**
 * Who owns the keys this process has authenticated, by key hash. A key never changes owner, so
 * once its owner is known the key and the owner's user item are read together, consistently:
 * one round trip, and a revoked key (or a changed login) still shows at once.
 */
const knownOwners = new WeakMap<Db, BoundedCache<string, string>>();
const KNOWN_OWNERS_AT_MOST = 10_000;

/**
 * The key's record and its owner's user item when `key` is a live API key, else undefined.
 * Reads only: the key's use is recorded by {@link recordApiKeyUse} once the request succeeds.
 */
export async function authenticateApiKey(db: Db, key: string): Promise<{ key: ApiKeyItem; keyHash: string; owner?: UserItem } | undefined> {
  if (!key.startsWith(API_KEY_PREFIX) || key.length > 200) return undefined;
  const keyHash = hashSecret(key);
  let owners = knownOwners.get(db);
  if (!owners) {
    owners = new BoundedCache(KNOWN_OWNERS_AT_MOST, () => 1);
    knownOwners.set(db, owners);
  }
  const knownOwner = owners.get(keyHash);
  const found = await getItems(db, knownOwner ? [apiKeyKey(keyHash), userKey(knownOwner)] : [apiKeyKey(keyHash)]);
  const Item = found.find((i) => i.sk === apiKeyKey(keyHash).sk);
  if (!Item) return undefined;
  const item = toApiKeyItem(Item);
  owners.remember(keyHash, item.userId);
  const stored = found.find((i) => i.sk === userKey(item.userId).sk && i.pk === userKey(item.userId).pk);
  return { key: item, keyHash, owner: stored ? toUserItem(stored) : await getUser(db, item.userId) };
}

/**
 * Refreshes the key's lastUsedAt after a request it authenticated succeeded (a rejected request
 * changes nothing, this hint included). At most once a minute per key; a key revoked meanwhile
 * stays deleted.
 */
export async function recordApiKeyUse(db: Db, used: { key: ApiKeyItem; keyHash: string }, now: Date): Promise<void> {
  const lastUsed = used.key.lastUsedAt ? Date.parse(used.key.lastUsedAt) : 0;
  if (now.getTime() - lastUsed < LAST_USED_GRANULARITY_MS) return;
  await writeIf(
    db,
    new UpdateCommand({
      TableName: db.table,
      Key: apiKeyKey(used.keyHash),
      UpdateExpression: 'SET lastUsedAt = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':now': now.toISOString() },
    }),
  );
}

export async function listApiKeys(db: Db, userId: string): Promise<ApiKeyItem[]> {
  const items = await queryAll(db, {
    IndexName: tableKeys.byOwner.name,
    KeyConditionExpression: 'gsi1pk = :owner',
    ExpressionAttributeValues: { ':owner': ownerPartition(userId) },
  });
  return items.map(toApiKeyItem);
}

/** Points `userId`'s keys narrowed to organisation `from` at `to`: it was renamed, and they follow it. */
export async function renameKeysOrg(db: Db, userId: string, from: string, to: string): Promise<void> {
  const items = await queryAll(db, {
    IndexName: tableKeys.byOwner.name,
    KeyConditionExpression: 'gsi1pk = :owner',
    ExpressionAttributeValues: { ':owner': ownerPartition(userId) },
  });
  const narrowed = items.filter((item) => typeof item.org === 'string' && item.org.toLowerCase() === from.toLowerCase());
  await Promise.all(
    narrowed.map((item) =>
      writeIf(
        db,
        new UpdateCommand({
          TableName: db.table,
          Key: { pk: item.pk, sk: item.sk },
          UpdateExpression: 'SET org = :to',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':to': to },
        }),
      ),
    ),
  );
}

/** Deletes the caller's key `id` and gives it as it was. Someone else's key is as unknown as a missing one. */
export async function revokeApiKey(db: Db, userId: string, id: string): Promise<ApiKeyItem> {
  const [found] = await queryAll(db, {
    IndexName: tableKeys.byOwner.name,
    KeyConditionExpression: 'gsi1pk = :owner',
    FilterExpression: 'id = :id',
    ExpressionAttributeValues: { ':owner': ownerPartition(userId), ':id': id },
  });
  if (!found) throw notFound('No such API key');
  try {
    await db.doc.send(
      new DeleteCommand({
        TableName: db.table,
        Key: { pk: found.pk, sk: found.sk },
        ConditionExpression: 'userId = :user',
        ExpressionAttributeValues: { ':user': userId },
      }),
    );
  } catch (error) {
    if (isConditionFailed(error)) throw notFound('No such API key');
    throw error;
  }
  return toApiKeyItem(found);
}

function toApiKeyItem(raw: Record<string, unknown>): ApiKeyItem {
  return parseItem(apiKeyItemSchema, raw, 'API key');
}
