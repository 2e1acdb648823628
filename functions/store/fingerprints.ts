import * as z from 'zod/mini';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { clawhubFingerprint } from '#core/clawhub-fingerprint';
import { type Db, getItems, parseItem } from './db.ts';
import { fingerprintKey, skillKey } from './keys.ts';
import { type SkillItem, toSkillItem, type VersionItem } from './skills.ts';

/**
 * Each version's ClawHub fingerprint (core/clawhub-fingerprint.ts), as an item of its skill's
 * partition, `SKILL#<id>/FINGERPRINT#<hex>` → the version. It is what lets a ClawHub client's
 * `GET /api/v1/resolve` name the version an installed folder holds in one read. Versions that
 * share a fingerprint (the same text files) share the item: the last published is named.
 */

const fingerprintItemSchema = z.object({ version: z.string() });

/** Records `item`'s fingerprint; call it once the version is stored, so the item never names a version that is not. */
export async function putFingerprint(db: Db, item: VersionItem): Promise<void> {
  const key = fingerprintKey(item.skillId, clawhubFingerprint(item.files));
  await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...key, version: item.version } }));
}

/** Removes `item`'s fingerprint, when its version could not be stored after all. */
export async function deleteFingerprint(db: Db, item: VersionItem): Promise<void> {
  await db.doc.send(new DeleteCommand({ TableName: db.table, Key: fingerprintKey(item.skillId, clawhubFingerprint(item.files)) }));
}

/**
 * A skill's META and the version with `fingerprint`, in one BatchGetItem; either may be missing
 * (no such skill; no version recorded with it).
 */
export async function getSkillAndFingerprint(db: Db, skillId: string, fingerprint: string): Promise<{ skill?: SkillItem; version?: string }> {
  const key = fingerprintKey(skillId, fingerprint);
  const found = await getItems(db, [skillKey(skillId), key]);
  const meta = found.find((item) => item.sk === 'META');
  const match = found.find((item) => item.sk === key.sk);
  return {
    ...(meta ? { skill: toSkillItem(meta) } : {}),
    ...(match ? { version: parseItem(fingerprintItemSchema, match, 'fingerprint').version } : {}),
  };
}
