/**
 * A read-through cache of values that never change once made (content-addressed blobs, the
 * payload of an immutable version), so it never needs invalidating, only bounding. It holds at
 * most `maxSize` (as measured by `sizeOf`), dropping the least recently used first; concurrent
 * misses for one key share a single load, and a failed load is not kept.
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();
  private readonly pending = new Map<K, Promise<V>>();
  private total = 0;

  constructor(
    readonly maxSize: number,
    private readonly sizeOf: (value: V) => number,
  ) {}

  /** The cached value of `key`, or what `load` returns (kept when it fits and `keep` says it is final). */
  async load(key: K, load: () => Promise<V>, keep: (value: V) => boolean = () => true): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    const loading = load().finally(() => this.pending.delete(key));
    this.pending.set(key, loading);
    const value = await loading;
    if (keep(value)) this.remember(key, value);
    return value;
  }

  /** The cached value of `key`, if held; a hit makes it the most recently used. */
  get(key: K): V | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    // Re-inserting moves the entry to the back of the Map's order: most recently used.
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit;
  }

  /** Whether `key` is held (without counting as a use). */
  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Keeps a value made elsewhere (bytes just written), unless it is larger than the whole cache. */
  remember(key: K, value: V): void {
    const size = this.sizeOf(value);
    if (size > this.maxSize || this.entries.has(key)) return;
    this.entries.set(key, value);
    this.total += size;
    for (const [oldest, old] of this.entries) {
      if (this.total <= this.maxSize) break;
      this.entries.delete(oldest);
      this.total -= this.sizeOf(old);
    }
  }

  /** The size of everything held, for tests and diagnostics. */
  get size(): number {
    return this.total;
  }
}
