import { BoundedCache } from '#core/bounded-cache';

/**
 * An in-process cache of blob bytes for delivery and the rebuild. Blobs are content-addressed, so
 * a SHA-256 names the same bytes forever: bounded by bytes, never invalidated. Profiling free
 * delivery showed the S3 read as the costliest of its storage calls.
 */
export class BlobCache extends BoundedCache<string, Uint8Array> {
  constructor(maxBytes: number) {
    super(maxBytes, (bytes) => bytes.byteLength);
  }

  /** Keeps bytes this process has just stored. */
  stored(sha256: string, bytes: Uint8Array): void {
    this.remember(sha256, bytes);
  }

  /** Bytes currently held, for tests and diagnostics. */
  get bytes(): number {
    return this.size;
  }
}
