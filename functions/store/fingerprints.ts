import * as z from 'zod/mini';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type Db, keyOfItem, parseItem, putItems } from './db.ts';
import { fingerprintKey, sortPrefix } from './keys.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * Each version's ClawHub fingerprint (core/clawhub-fingerprint.ts), as an item of its skill's
 * partition, `SKILL#<id>/FINGERPRINT#<hex>` → the version. It is what lets a ClawHub client's
 * `GET /api/v1/resolve` name the version an installed folder holds in one read. Versions that
 * share a fingerprint (the same text files) share the item: the last published is named.
 *
 * A publish records its version's item as soon as the version is stored, so resolve is always
 * one read, a miss included (it used to fingerprint every version of the skill on a miss). The
 * items are derived from the versions all the same, so the rebuild records whatever is missing
 * (a version published before items were recorded, or a publish that crashed in between) and
 * names the last published version where a re-release shares a fingerprint.
 */

const fingerprintItemSchema = lazySchema(() => z.object({ version: z.string() }));

/** A fingerprint a skill's partition records, and the version it names. */
export interface RecordedFingerprint {
  skillId: string;
  fingerprint: string;
  version: string;
}

/** The version a fingerprint item names, or undefined for any other item of the partition. */
export function recordedVersion(item: Record<string, unknown>): { fingerprint: string; version: string } | undefined {
  const { sk } = keyOfItem(item);
  if (!sk.startsWith(sortPrefix.fingerprint)) return undefined;
  return { fingerprint: sk.slice(sortPrefix.fingerprint.length), version: parseItem(fingerprintItemSchema, item, 'fingerprint').version };
}

/** Records fingerprints, 25 to a write: idempotent, so a rebuild that runs twice writes the same items. */
export async function putFingerprints(db: Db, fingerprints: readonly RecordedFingerprint[]): Promise<void> {
  await putItems(
    db,
    fingerprints.map(({ skillId, fingerprint, version }) => ({ ...fingerprintKey(skillId, fingerprint), version })),
  );
}

/** Records one version's fingerprint, as its publish does: the version published last names it. */
export async function putFingerprint(db: Db, { skillId, fingerprint, version }: RecordedFingerprint): Promise<void> {
  await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...fingerprintKey(skillId, fingerprint), version } }));
}

/** Removes the item a publish recorded, when the publish failed after all (its version is gone too). */
export async function deleteFingerprint(db: Db, { skillId, fingerprint }: Omit<RecordedFingerprint, 'version'>): Promise<void> {
  await db.doc.send(new DeleteCommand({ TableName: db.table, Key: fingerprintKey(skillId, fingerprint) }));
}
