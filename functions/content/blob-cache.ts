/**
 * An in-process cache of blob bytes for delivery. Blobs are content-addressed, so a SHA-256 names
 * the same bytes forever: the cache never needs invalidating, only bounding. It holds at most
 * `maxBytes`, dropping the least recently used first, and concurrent misses for one blob share a
 * single read. Profiling free delivery showed the S3 read as the costliest of its storage calls.
 */
export class BlobCache {
  private readonly entries = new Map<string, Uint8Array>();
  private readonly pending = new Map<string, Promise<Uint8Array>>();
  private size = 0;

  constructor(readonly maxBytes: number) {}

  /** The cached bytes of `sha256`, or what `read` returns (cached when it fits). */
  async load(sha256: string, read: () => Promise<Uint8Array>): Promise<Uint8Array> {
    const hit = this.entries.get(sha256);
    if (hit) {
      // Re-inserting moves the entry to the back of the Map's order: most recently used.
      this.entries.delete(sha256);
      this.entries.set(sha256, hit);
      return hit;
    }
    const inFlight = this.pending.get(sha256);
    if (inFlight) return inFlight;
    const loading = read().finally(() => this.pending.delete(sha256));
    this.pending.set(sha256, loading);
    const bytes = await loading;
    this.store(sha256, bytes);
    return bytes;
  }

  /** Whether the bytes of `sha256` are held (without counting as a use). */
  has(sha256: string): boolean {
    return this.entries.has(sha256);
  }

  /** Bytes currently held, for tests and diagnostics. */
  get bytes(): number {
    return this.size;
  }

  /** Keeps bytes just written, so the rebuild that follows a publish reads nothing back. */
  remember(sha256: string, bytes: Uint8Array): void {
    this.store(sha256, bytes);
  }

  private store(sha256: string, bytes: Uint8Array): void {
    if (bytes.byteLength > this.maxBytes || this.entries.has(sha256)) return;
    this.entries.set(sha256, bytes);
    this.size += bytes.byteLength;
    for (const [oldest, value] of this.entries) {
      if (this.size <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.size -= value.byteLength;
    }
  }
}
