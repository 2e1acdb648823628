import * as z from 'zod/mini';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Db, parseItem, queryOwned } from './db.ts';
import { importKey, prefix } from './keys.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * GitHub imports (docs/api.md §7.16): `IMPORT#<id>/IMPORT`, in the GSI partition
 * `IMPORTS#<user id>` for its owner's list. The item holds no secret: the webhook's secret is
 * derived from the server's import key and the id (services/imports.ts).
 */

const importItemSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    /** Who imported it: every sync publishes as them. */
    userId: z.string(),
    /** `owner/name` as GitHub names the repository. */
    repo: z.string(),
    /** The branch or tag tracked. */
    ref: z.string(),
    /** The folder skills are looked for in, `''` for the whole repository. */
    path: z.string(),
    /** The organisation new skills are published into. */
    org: z.optional(z.string()),
    createdAt: z.string(),
    lastSync: z.optional(z.object({ at: z.string(), commit: z.string() })),
  }),
);
export type ImportItem = z.output<typeof importItemSchema>;

const listPartition = (userId: string) => prefix.importsOf + userId;

export async function putImport(db: Db, item: ImportItem): Promise<void> {
  await db.doc.send(
    new PutCommand({
      TableName: db.table,
      Item: { ...importKey(item.id), ...item, gsi1pk: listPartition(item.userId), gsi1sk: `${item.createdAt}#${item.id}` },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getImport(db: Db, id: string): Promise<ImportItem | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: importKey(id), ConsistentRead: true }));
  return Item && toImport(Item);
}

/** A user's imports, oldest first (the GSI is eventually consistent). */
export async function listImportsOf(db: Db, userId: string): Promise<ImportItem[]> {
  return (await queryOwned(db, listPartition(userId))).map(toImport);
}

/** Records the commit an import or a sync read. */
export async function recordSync(db: Db, id: string, lastSync: NonNullable<ImportItem['lastSync']>): Promise<void> {
  await db.doc.send(
    new UpdateCommand({
      TableName: db.table,
      Key: importKey(id),
      UpdateExpression: 'SET lastSync = :sync',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':sync': lastSync },
    }),
  );
}

const toImport = (raw: Record<string, unknown>): ImportItem => parseItem(importItemSchema, raw, 'import');
