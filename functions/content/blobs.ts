import type { S3Client } from '@aws-sdk/client-s3';
import type { FileBytes } from '#core/bundle';
import { sha256Hex } from '#core/bundle';
import { ByteCache } from './byte-cache.ts';
import { getObjectBytes, objectExists, putObject } from './s3.ts';

/**
 * File contents, content-addressed by SHA-256 in the private content bucket. Writing the same
 * bytes twice is harmless, so content goes first and the DynamoDB item that refers to it second.
 */
export interface Blobs {
  s3: S3Client;
  bucket: string;
  /** Recently written or read blobs; they never change, so a hit is always right. */
  cache: ByteCache;
}

export function createBlobs(s3: S3Client, bucket: string, cacheBytes = 64 * 1024 * 1024): Blobs {
  return { s3, bucket, cache: new ByteCache(cacheBytes) };
}

export const blobKey = (sha256: string) => `blobs/${sha256.slice(0, 2)}/${sha256}`;

/** Stores every file's bytes, skipping ones already present. */
export async function putBlobs(blobs: Blobs, files: FileBytes[]): Promise<void> {
  const unique = new Map(files.map((f) => [sha256Hex(f.bytes), f.bytes]));
  await Promise.all(
    [...unique].map(async ([sha, bytes]) => {
      if (!blobs.cache.get(sha) && !(await objectExists(blobs.s3, blobs.bucket, blobKey(sha)))) {
        await putObject(blobs.s3, blobs.bucket, blobKey(sha), bytes, { contentType: 'application/octet-stream' });
      }
      blobs.cache.set(sha, bytes);
    }),
  );
}

/** Reads the bytes of one blob; throws if it is missing, which means the store is damaged. */
export async function getBlob(blobs: Blobs, sha256: string): Promise<Uint8Array> {
  const cached = blobs.cache.get(sha256);
  if (cached) return cached;
  const bytes = await getObjectBytes(blobs.s3, blobs.bucket, blobKey(sha256));
  if (!bytes) throw new Error(`content blob ${sha256} is missing`);
  blobs.cache.set(sha256, bytes);
  return bytes;
}
