import type { S3Client } from '@aws-sdk/client-s3';
import type { FileBytes } from '#core/bundle';
import { sha256Hex } from '#core/bundle';
import { mapLimit } from '#core/map-limit';
import type { BlobCache } from './blob-cache.ts';
import { getObjectBytes, objectExists, putObject } from './s3.ts';

/**
 * File contents, content-addressed by SHA-256 in the private content bucket. Writing the same
 * bytes twice is harmless, so content goes first and the DynamoDB item that refers to it second.
 */
export interface Blobs {
  s3: S3Client;
  bucket: string;
  /** Read-through cache for {@link getBlob}; safe because a blob's bytes never change. */
  cache?: BlobCache;
}

export const blobKey = (sha256: string) => `blobs/${sha256.slice(0, 2)}/${sha256}`;

/**
 * Stores every file's bytes, skipping ones known to be present: held in the cache (blobs are
 * content-addressed and never deleted, so a cached one is stored), or, for large files, found
 * by a HEAD. A small file is put without asking first: storing the same bytes under their own
 * hash again is harmless, and a HEAD would cost the same round trip as the PUT.
 */
export async function putBlobs(blobs: Blobs, files: FileBytes[]): Promise<void> {
  const unique = new Map(files.map((f) => [sha256Hex(f.bytes), f.bytes]));
  await Promise.all(
    [...unique].map(async ([sha, bytes]) => {
      if (blobs.cache?.has(sha)) return;
      const present = bytes.byteLength > PUT_WITHOUT_HEAD_BYTES && (await objectExists(blobs.s3, blobs.bucket, blobKey(sha)));
      if (!present) await putObject(blobs.s3, blobs.bucket, blobKey(sha), bytes, { contentType: 'application/octet-stream' });
      blobs.cache?.stored(sha, bytes);
    }),
  );
}

/** Up to this size a blob is put without a HEAD first (see {@link putBlobs}). */
const PUT_WITHOUT_HEAD_BYTES = 64 * 1024;

/**
 * Reads the bytes of one blob and checks them against their name. Throws if the blob is missing
 * or its bytes do not hash to `sha256`, which both mean the store is damaged.
 */
export async function getBlob(blobs: Blobs, sha256: string): Promise<Uint8Array> {
  const read = async () => {
    const bytes = await getObjectBytes(blobs.s3, blobs.bucket, blobKey(sha256));
    if (!bytes) throw new Error(`content blob ${sha256} is missing`);
    if (sha256Hex(bytes) !== sha256) throw new Error(`content blob ${sha256} does not match its hash`);
    return bytes;
  };
  return blobs.cache ? blobs.cache.load(sha256, read) : read();
}

/** A stored version's files with their bytes and executable flags, read a few at a time, in the order given. */
export function getFiles(blobs: Blobs, files: readonly (Pick<FileBytes, 'filename' | 'encoding' | 'executable'> & { sha256: string })[]): Promise<FileBytes[]> {
  return mapLimit(files, 8, async (file) => ({
    filename: file.filename,
    encoding: file.encoding,
    bytes: await getBlob(blobs, file.sha256),
    ...(file.executable ? { executable: true } : {}),
  }));
}
