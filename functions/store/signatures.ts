import * as z from 'zod/mini';
import { type RecordedSignature as Signature, SIGNATURE_FORMAT } from '#core/version-signature';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type Db, keyOfItem, parseItem, putItems } from './db.ts';
import { signatureKey, sortPrefix } from './keys.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * The registry's signature of each version (docs/api.md §11.11), as an item of its skill's
 * partition, `SKILL#<id>/SIGNATURE#<version>` → `{keyid, sig, format, signed}` (`format` and `signed`,
 * the digest of the message, absent on signatures of format 1). Like the fingerprints, the items
 * are derived (the publish records one as soon as its version is stored; the rebuild signs any
 * version without one, or with a retired key's), so they are not among the rebuild's sources and
 * writing them sets off no rebuild. Readers of a partition join them to the versions.
 */

/** `integrity` is what was signed, so a signature left by a publish that failed is never taken for a later version's. */
const signatureItemSchema = lazySchema(() =>
  z.object({
    keyid: z.string(),
    sig: z.string(),
    integrity: z.string(),
    // Format 2 records stand until the rebuild signs their versions again in the current format.
    format: z.optional(z.union([z.literal(2), z.literal(SIGNATURE_FORMAT)])),
    signed: z.optional(z.string()),
  }),
);

/** The item's attributes besides its key. */
const attributesOf = (integrity: string, { keyid, sig, format, signed }: Signature) => ({
  keyid,
  sig,
  integrity,
  ...(format === undefined ? {} : { format }),
  ...(signed === undefined ? {} : { signed }),
});

/** The version a signature item signs, and the signature, or undefined for any other item of the partition. */
export function recordedSignature(item: Record<string, unknown>): { version: string; integrity: string; signature: Signature } | undefined {
  const { sk } = keyOfItem(item);
  if (!sk.startsWith(sortPrefix.signature)) return undefined;
  const { integrity, ...signature } = parseItem(signatureItemSchema, item, 'signature');
  return { version: sk.slice(sortPrefix.signature.length), integrity, signature };
}

export interface RecordedSignature {
  skillId: string;
  version: string;
  integrity: string;
  signature: Signature;
}

/** Records one version's signature, as its publish does. */
export async function putSignature(db: Db, { skillId, version, integrity, signature }: RecordedSignature): Promise<void> {
  await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...signatureKey(skillId, version), ...attributesOf(integrity, signature) } }));
}

/** Removes the signature a publish recorded, when the publish failed after all (its version is gone too). */
export async function deleteSignature(db: Db, skillId: string, version: string): Promise<void> {
  await db.doc.send(new DeleteCommand({ TableName: db.table, Key: signatureKey(skillId, version) }));
}

/** Records signatures, 25 to a write; a version signed again (a new key, new facts) is overwritten. */
export async function putSignatures(db: Db, signatures: readonly RecordedSignature[]): Promise<void> {
  await putItems(
    db,
    signatures.map(({ skillId, version, integrity, signature }) => ({ ...signatureKey(skillId, version), ...attributesOf(integrity, signature) })),
  );
}

/** A partition's versions with their signatures joined (`signature` absent on a version not signed yet, or signed over other content). */
export function withSignatures<T extends { version: string; integrity: string }>(
  versions: T[],
  items: readonly Record<string, unknown>[],
): (T & { signature?: Signature })[] {
  const signed = new Map<string, { integrity: string; signature: Signature }>();
  for (const item of items) {
    const recorded = recordedSignature(item);
    if (recorded) signed.set(recorded.version, recorded);
  }
  return versions.map((v) => {
    const recorded = signed.get(v.version);
    return recorded?.integrity === v.integrity ? { ...v, signature: recorded.signature } : v;
  });
}
