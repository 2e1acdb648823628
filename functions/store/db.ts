import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type DeleteCommand,
  DynamoDBDocumentClient,
  type PutCommand,
  QueryCommand,
  type QueryCommandInput,
  type UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { output, ZodMiniType } from 'zod/mini';
import type { Config } from '../platform/config.ts';
import { withoutSdkLogging } from '../platform/sdk-client.ts';

/** The DynamoDB document client and the single table it talks to. */
export interface Db {
  doc: DynamoDBDocumentClient;
  table: string;
}

export function createDb(config: Config): Db {
  const client = new DynamoDBClient({
    region: config.region,
    ...(config.dynamoEndpoint ? { endpoint: config.dynamoEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    maxAttempts: 4,
  });
  withoutSdkLogging(client);
  return {
    // convertClassInstanceToMap: the marshaller tells a map from other objects by `constructor.name`,
    // so a map keyed by input (dependencies on a skill slugged `constructor`) would be refused.
    doc: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true } }),
    table: config.tableName,
  };
}

/** True for the error DynamoDB returns when a condition expression does not hold. */
export function isConditionFailed(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
}

/** Sends a conditional write: true when it was made, false when its condition did not hold. */
export async function writeIf(db: Db, command: PutCommand | UpdateCommand | DeleteCommand): Promise<boolean> {
  try {
    await db.doc.send(command as PutCommand);
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

/** Index names and key attributes of the single table (docs/architecture.md, "Data model"). */
export const tableKeys = {
  partition: 'pk',
  sort: 'sk',
  byOwner: { name: 'gsi1', partition: 'gsi1pk', sort: 'gsi1sk' },
  ttl: 'expiresAt',
} as const;

/**
 * The items at `keys` that exist (in no particular order), read consistently. Reads asked for in
 * the same turn of the event loop go out together in one BatchGetItem (up to its 100 keys), so
 * checks that start side by side, even from different parts of a request, cost one round trip.
 */
export function getItems(db: Db, keys: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  if (keys.length === 0) return Promise.resolve([]);
  const batch = batchWithRoom(db, keys.length);
  const ids = keys.map(keyId);
  for (const [i, key] of keys.entries()) batch.keys.set(ids[i]!, key);
  return new Promise((resolve, reject) =>
    batch.waiting.push({ resolve: (items) => resolve(ids.map((id) => items.get(id)).filter((item) => item !== undefined)), reject }),
  );
}

/** The batch this turn's reads join, or a new one (sent on `setImmediate`) when it has no room for `count` more keys. */
function batchWithRoom(db: Db, count: number): ReadBatch {
  const open = openBatches.get(db);
  if (open && open.keys.size + count <= BATCH_GET_KEYS_AT_MOST) return open;
  const fresh: ReadBatch = { keys: new Map(), waiting: [] };
  openBatches.set(db, fresh);
  setImmediate(() => sendBatch(db, fresh));
  return fresh;
}

interface ReadBatch {
  keys: Map<string, Record<string, unknown>>;
  waiting: { resolve: (items: Map<string, Record<string, unknown>>) => void; reject: (error: unknown) => void }[];
}

const BATCH_GET_KEYS_AT_MOST = 100;
const openBatches = new WeakMap<Db, ReadBatch>();
const keyId = (key: Record<string, unknown>) => `${String(key[tableKeys.partition])}\u0000${String(key[tableKeys.sort])}`;

async function sendBatch(db: Db, batch: ReadBatch): Promise<void> {
  if (openBatches.get(db) === batch) openBatches.delete(db);
  try {
    const found = new Map<string, Record<string, unknown>>();
    let keys = [...batch.keys.values()];
    for (let attempt = 0; keys.length > 0; attempt++) {
      // DynamoDB may leave keys unprocessed under load: ask again for those, after a pause.
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(200, 10 * 2 ** attempt)));
      const out = await db.doc.send(new BatchGetCommand({ RequestItems: { [db.table]: { Keys: keys, ConsistentRead: true } } }));
      for (const item of out.Responses?.[db.table] ?? []) found.set(keyId(item), item);
      keys = out.UnprocessedKeys?.[db.table]?.Keys ?? [];
    }
    for (const waiter of batch.waiting) waiter.resolve(found);
  } catch (error) {
    for (const waiter of batch.waiting) waiter.reject(error);
  }
}

/** Runs a Query to the end, following LastEvaluatedKey. Callers bound the partition's size. */
export async function queryAll(db: Db, input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.doc.send(new QueryCommand({ ...input, TableName: db.table, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/**
 * The items of one owner partition of the GSI (a user's keys, a skill's tokens or grants),
 * optionally only those with sort key `sortEquals`. The caller bounds the partition's size.
 */
export function queryOwned(db: Db, partition: string, sortEquals?: string): Promise<Record<string, unknown>[]> {
  const { name, partition: pk, sort: sk } = tableKeys.byOwner;
  return queryAll(db, {
    IndexName: name,
    KeyConditionExpression: sortEquals === undefined ? `${pk} = :pk` : `${pk} = :pk AND ${sk} = :sk`,
    ExpressionAttributeValues: sortEquals === undefined ? { ':pk': partition } : { ':pk': partition, ':sk': sortEquals },
  });
}

/** An item whose stored shape is not what its entity says: written by hand, or by a bug. */
export class DamagedItemError extends Error {
  constructor(kind: string, problem: string) {
    super(`A ${kind} item in the table is damaged: ${problem}`);
    this.name = 'DamagedItem';
  }
}

/** Reads an item with its entity's schema; a mismatch is a {@link DamagedItemError} naming the first problem. */
export function parseItem<S extends ZodMiniType>(schema: S, raw: Record<string, unknown>, kind: string): output<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  throw new DamagedItemError(kind, first ? `${first.path.join('.') || 'item'}: ${first.message}` : 'unreadable');
}
