import { canonicalJson } from './canonical-json.ts';

/**
 * The entries of a large JSON document (the catalog, the discovery index), kept sorted by a
 * string key in code-unit order, each with its canonical JSON made once when it is set. Patching
 * one entry is a map update, and serialising the document joins the stored fragments instead of
 * copying, sorting and walking every entry again: the catalog at 10,000 skills serialises in a
 * few milliseconds instead of tens. {@link serialise} gives exactly `canonicalJson` of the
 * document.
 */
export class SortedJsonList<T> {
  private readonly entries = new Map<string, { value: T; json: string }>();
  /** Keys in order; undefined while it needs sorting (after entries were added out of order). */
  private order?: string[] = [];

  constructor(
    private readonly keyOf: (entry: T) => string,
    entries: Iterable<T> = [],
  ) {
    for (const entry of entries) this.entries.set(keyOf(entry), { value: entry, json: canonicalJson(entry) });
    this.order = undefined;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): T | undefined {
    return this.entries.get(key)?.value;
  }

  *values(): Generator<T> {
    for (const { value } of this.entries.values()) yield value;
  }

  /** Adds or replaces the entry under its key. */
  set(entry: T): void {
    const key = this.keyOf(entry);
    const json = canonicalJson(entry);
    const old = this.entries.get(key);
    if (old?.json === json) return;
    this.entries.set(key, { value: entry, json });
    if (!old && this.order) this.order.splice(insertionPoint(this.order, key), 0, key);
  }

  delete(key: string): void {
    if (!this.entries.delete(key) || !this.order) return;
    this.order.splice(insertionPoint(this.order, key), 1);
  }

  /** The keys in order. */
  keys(): readonly string[] {
    this.order ??= [...this.entries.keys()].sort(compareKeys);
    return this.order;
  }

  /** The entries' canonical JSON in key order, comma-separated: the inside of the array. */
  fragment(): string {
    const parts: string[] = [];
    for (const key of this.keys()) parts.push(this.entries.get(key)!.json);
    return parts.join(',');
  }

  /**
   * `canonicalJson({ ...header, [member]: entries in key order })`. The member must sort after
   * every header key, so that it comes last in the canonical document.
   */
  serialise(header: Record<string, unknown>, member: string): string {
    return serialiseFragments(header, member, [this.fragment()]);
  }
}

/**
 * `canonicalJson({ ...header, [member]: [...] })` whose array is the given fragments (each the
 * inside of an array, as {@link SortedJsonList.fragment} gives it) joined in order: a document
 * made of several lists without parsing or copying their entries.
 */
export function serialiseFragments(header: Record<string, unknown>, member: string, fragments: readonly string[]): string {
  const head = canonicalJson({ ...header, [member]: [] });
  const tail = `${JSON.stringify(member)}:[]}`;
  if (!head.endsWith(tail) || Object.keys(header).some((key) => key > member)) throw new Error(`${member} must sort after every header key`);
  return `${head.slice(0, -2)}${fragments.filter((f) => f !== '').join(',')}]}`;
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The index of `key` in the sorted `keys`, or where it would go. */
export function insertionPoint(keys: readonly string[], key: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (keys[mid]! < key) low = mid + 1;
    else high = mid;
  }
  return low;
}
