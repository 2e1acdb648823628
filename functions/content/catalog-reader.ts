import type { CatalogDocument, CatalogEntry } from '#core/catalog';
import { CATALOG_KEY } from '#core/static-paths';
import type { StaticStore } from './static-store.ts';

/**
 * The catalog (`/.well-known/skills.json`) as the rebuild last wrote it, for the endpoints that
 * list or search every skill: DynamoDB has no index of all skills, and the catalog is one. It is
 * read again at most every `maxAgeMs`, and then conditionally (a 304 costs no transfer or parse),
 * so a write shows within about a second plus the rebuild's own delay (docs/api.md §12).
 */
export interface CatalogSnapshot {
  /** Every listed skill (quarantined ones never are), sorted by slug. */
  entries: readonly CatalogEntry[];
  /** The free ones. */
  free: readonly CatalogEntry[];
}

export class CatalogReader {
  private held?: { snapshot: CatalogSnapshot; etag?: string; checkedAt: number };
  private reading?: Promise<CatalogSnapshot>;

  constructor(
    private readonly store: StaticStore,
    private readonly maxAgeMs = 1000,
  ) {}

  /** The catalog, empty until the first rebuild has written one. */
  snapshot(): Promise<CatalogSnapshot> {
    if (this.held && performance.now() - this.held.checkedAt < this.maxAgeMs) return Promise.resolve(this.held.snapshot);
    // Concurrent requests share one read.
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<CatalogSnapshot> {
    const checkedAt = performance.now();
    const found = await this.store.getIfChanged(CATALOG_KEY, this.held?.etag);
    if (found === 'unchanged' && this.held) {
      this.held.checkedAt = checkedAt;
      return this.held.snapshot;
    }
    const entries = found && found !== 'unchanged' ? parse(found.bytes) : [];
    const snapshot = { entries, free: entries.filter((entry) => !entry.paid) };
    this.held = { snapshot, ...(found && found !== 'unchanged' && found.etag ? { etag: found.etag } : {}), checkedAt };
    return snapshot;
  }
}

/** One reader per static bucket (tests run several services in one process). */
const readers = new WeakMap<StaticStore, CatalogReader>();

/** The catalog of `store`, through the one reader kept for it. */
export function catalogSnapshot(store: StaticStore): Promise<CatalogSnapshot> {
  let reader = readers.get(store);
  if (!reader) {
    reader = new CatalogReader(store);
    readers.set(store, reader);
  }
  return reader.snapshot();
}

/** The catalog's entries; a damaged catalog reads as empty until the next rebuild rewrites it. */
function parse(bytes: Uint8Array): CatalogEntry[] {
  try {
    const skills = (JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<CatalogDocument>).skills;
    return Array.isArray(skills) ? skills : [];
  } catch {
    return [];
  }
}
