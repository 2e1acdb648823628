import { sha256Hex } from '#core/bundle';
import type { Blobs } from './blobs.ts';
import { getObjectBytes, putObject } from './s3.ts';

/**
 * Bytes a ClawHub client sends ahead of its publish (docs/api.md §14.3), kept apart from the
 * content store until a publish takes them: under {@link SENT_AHEAD_PREFIX} of the private
 * content bucket, by digest, where they expire (infra/stack.ts's lifecycle rule, the local
 * runtime's sweep: functions/content/expiring-content.ts). A publish that takes a file stores
 * its bytes in the content store as any publish does; what is never published is deleted.
 */
export const SENT_AHEAD_PREFIX = 'uploads/';
export const sentAheadKey = (sha256: string) => `${SENT_AHEAD_PREFIX}${sha256.slice(0, 2)}/${sha256}`;

/** Keeps bytes sent ahead; written every time, so an object's age is that of the newest bytes sent to it. */
export async function keepSentAhead(blobs: Blobs, sha256: string, bytes: Uint8Array): Promise<void> {
  await putObject(blobs.s3, blobs.bucket, sentAheadKey(sha256), bytes, { contentType: 'application/octet-stream' });
}

/** Bytes sent ahead, checked against their digest; undefined once they expired. */
export async function readSentAhead(blobs: Blobs, sha256: string): Promise<Uint8Array | undefined> {
  const bytes = await getObjectBytes(blobs.s3, blobs.bucket, sentAheadKey(sha256));
  if (bytes && sha256Hex(bytes) !== sha256) throw new Error(`bytes sent ahead as ${sha256} do not match their hash`);
  return bytes;
}
