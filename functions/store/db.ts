import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  type DeleteCommand,
  DynamoDBDocumentClient,
  type PutCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
  type UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { mapLimit } from '#core/map-limit';
import type { Config } from '../platform/config.ts';
import { withoutSdkLogging } from '../platform/sdk-client.ts';
import { lazySchema } from '#core/lazy-schema';

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
 * The items at `keys` that exist (in no particular order), read consistently: BatchGetItem
 * requests of up to 100 distinct keys, asking again for any DynamoDB leaves unprocessed.
 */
export async function getItems(db: Db, keys: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  const distinct = [...new Map(keys.map((key) => [keyId(key), key])).values()];
  const found: Record<string, unknown>[] = [];
  for (let start = 0; start < distinct.length; start += BATCH_GET_KEYS_AT_MOST) {
    let pending = distinct.slice(start, start + BATCH_GET_KEYS_AT_MOST);
    for (let attempt = 0; pending.length > 0; attempt++) {
      // DynamoDB may leave keys unprocessed under load: ask again for those, after a pause.
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(200, 10 * 2 ** attempt)));
      const out = await db.doc.send(new BatchGetCommand({ RequestItems: { [db.table]: { Keys: pending, ConsistentRead: true } } }));
      found.push(...(out.Responses?.[db.table] ?? []));
      pending = out.UnprocessedKeys?.[db.table]?.Keys ?? [];
    }
  }
  return found;
}

const BATCH_GET_KEYS_AT_MOST = 100;

/**
 * Puts `items` unconditionally, 25 to a BatchWriteItem and four batches at a time, asking again
 * for any DynamoDB leaves unprocessed. For derived items and bulk loads only: a batch takes no
 * conditions.
 */
export async function putItems(db: Db, items: readonly Record<string, unknown>[]): Promise<void> {
  const batches = Array.from({ length: Math.ceil(items.length / BATCH_WRITE_ITEMS_AT_MOST) }, (_, i) =>
    items.slice(i * BATCH_WRITE_ITEMS_AT_MOST, (i + 1) * BATCH_WRITE_ITEMS_AT_MOST),
  );
  await mapLimit(batches, 4, async (batch) => {
    let pending: { PutRequest?: { Item?: Record<string, unknown> } }[] = batch.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 10) throw new Error('DynamoDB kept leaving items of a batch write unprocessed');
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(200, 10 * 2 ** attempt)));
      const out = await db.doc.send(new BatchWriteCommand({ RequestItems: { [db.table]: pending as { PutRequest: { Item: Record<string, unknown> } }[] } }));
      pending = out.UnprocessedItems?.[db.table] ?? [];
    }
  });
}

const BATCH_WRITE_ITEMS_AT_MOST = 25;
const keyId = (key: Record<string, unknown>) => `${String(key[tableKeys.partition])}\u0000${String(key[tableKeys.sort])}`;

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
 * Reads the whole table in `segments` parallel scans, handing every item (that passes the
 * input's filter) to `onItem` as its page arrives. For passes over every skill at once, where a
 * query per skill would cost a round trip per skill.
 */
export async function scanAll(
  db: Db,
  input: Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Segment' | 'TotalSegments'>,
  onItem: (item: Record<string, unknown>) => void,
  segments: number | { total: number; only: readonly number[] } = 4,
): Promise<void> {
  // A number scans the whole table in that many parallel segments; `only` scans some segments of
  // `total` (a shard of the full rebuild). DynamoDB puts every item of a partition in one segment.
  const { total, only } = typeof segments === 'number' ? { total: segments, only: Array.from({ length: segments }, (_, i) => i) } : segments;
  await Promise.all(
    only.map(async (Segment) => {
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await db.doc.send(new ScanCommand({ ...input, TableName: db.table, Segment, TotalSegments: total, ExclusiveStartKey }));
        for (const item of page.Items ?? []) onItem(item);
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
    }),
  );
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

const itemKeySchema = lazySchema(() => z.object({ pk: z.string(), sk: z.string() }));

/** The table key of an item as read. */
export function keyOfItem(raw: Record<string, unknown>): { pk: string; sk: string } {
  return parseItem(itemKeySchema, raw, 'table');
}

/** Reads an item with its entity's schema; a mismatch is a {@link DamagedItemError} naming the first problem. */
export function parseItem<S extends z.ZodMiniType>(schema: S, raw: Record<string, unknown>, kind: string): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  throw new DamagedItemError(kind, first ? `${first.path.join('.') || 'item'}: ${first.message}` : 'unreadable');
}
