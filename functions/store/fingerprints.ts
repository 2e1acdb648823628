import * as z from 'zod/mini';
import { type Db, keyOfItem, parseItem, putItems } from './db.ts';
import { fingerprintKey, sortPrefix } from './keys.ts';

/**
 * Each version's ClawHub fingerprint (core/clawhub-fingerprint.ts), as an item of its skill's
 * partition, `SKILL#<id>/FINGERPRINT#<hex>` → the version. It is what lets a ClawHub client's
 * `GET /api/v1/resolve` name the version an installed folder holds in one read. Versions that
 * share a fingerprint (the same text files) share the item: the last published is named.
 *
 * The items are derived from the versions, as the static files are, so the rebuild writes them
 * (docs/architecture.md): the publish itself does not wait for them. Until they are written,
 * resolve matches from the versions' own file lists.
 */

const fingerprintItemSchema = z.object({ version: z.string() });

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
