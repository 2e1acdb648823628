/**
 * A byte-bounded LRU for immutable values (content-addressed blobs): a hit never needs
 * revalidating, so the only policy is what to forget when full.
 */
export class ByteCache {
  private readonly entries = new Map<string, Uint8Array>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): Uint8Array | undefined {
    const value = this.entries.get(key);
    if (value) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: Uint8Array): void {
    if (value.byteLength > this.maxBytes / 8 || this.entries.has(key)) return;
    this.entries.set(key, value);
    this.bytes += value.byteLength;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= old.byteLength;
    }
  }
}
