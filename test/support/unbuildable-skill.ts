import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '#functions/store/db';
import { versionKey } from '#functions/store/keys';
import { getVersion, versionRecord } from '#functions/store/skills';

/**
 * Real faults that make one skill's rebuild fail, written straight into the table (the API
 * refuses to store them, or will): no mock of S3 or DynamoDB, the rebuild meets them as it would
 * in a store that holds them.
 */

/**
 * A prerelease whose bundle key (`bundles/<slug>/<version>.json`) the embedded S3's file store
 * cannot hold: the file name is longer than the file system allows, and s3rver answers every PUT
 * of it with a 500 InternalError.
 */
export const UNSTORABLE_VERSION = `1.0.0-${'a'.repeat(250)}`;

/** A version the rebuild cannot build anything from: its list of files is missing. */
export const DAMAGED_VERSION = '0.0.1-damaged';

export type Fault = 'unstorable' | 'damaged';

/**
 * Adds to a published skill's version 1.0.0 a version its rebuild fails on, with the same files
 * (so its content is in the content bucket): `unstorable`, a bundle s3rver cannot store;
 * `damaged`, an item without its files. Both are prereleases, so the skill's current version
 * stays as it was.
 */
export async function plantFault(db: Db, skillId: string, fault: Fault, publishedAt = new Date().toISOString()): Promise<string> {
  const base = await getVersion(db, skillId, '1.0.0');
  if (!base) throw new Error(`skill ${skillId} has no version 1.0.0`);
  const version = fault === 'unstorable' ? UNSTORABLE_VERSION : DAMAGED_VERSION;
  const item: Record<string, unknown> = { ...versionRecord({ ...base, version, publishedAt }) };
  if (fault === 'damaged') delete item.files;
  await db.doc.send(new PutCommand({ TableName: db.table, Item: item }));
  return version;
}

/** Removes what {@link plantFault} added: the repair an operator would make. */
export async function removeFault(db: Db, skillId: string, fault: Fault): Promise<void> {
  const version = fault === 'unstorable' ? UNSTORABLE_VERSION : DAMAGED_VERSION;
  await db.doc.send(new DeleteCommand({ TableName: db.table, Key: versionKey(skillId, version) }));
}
