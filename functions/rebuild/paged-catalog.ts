import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { type CatalogDocument, type CatalogEntry, catalogList } from '#core/catalog';
import { type CatalogIndex, CatalogPages, catalogIndexJson, catalogJsonOfPages, catalogPageJson } from '#core/catalog-pages';
import { canonicalJson } from '#core/canonical-json';
import type { SortedJsonList } from '#core/sorted-json-list';
import { CATALOG_INDEX_KEY, CATALOG_KEY, catalogPageKey, precompressedKey } from '#core/static-paths';
import type { StaticStore } from '../content/static-store.ts';

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * The catalog as the rebuild keeps it in the static bucket (core/catalog-pages.ts): pages and
 * their index, patched per write, and `/.well-known/skills.json` assembled from the pages and
 * stored with its brotli and gzip copies. What this process last wrote or read is held with its
 * ETags, so a write reads nothing when the lock's memo says it wrote last, and otherwise only
 * the index and the pages it changes, conditionally.
 *
 * Callers hold the catalog's lease lock around every method but {@link assembleIfStale}'s
 * check (it takes no lock: an assembly is a pure function of the index it read).
 */
export class PagedCatalog {
  private index?: { document: CatalogIndex; etag?: string };
  private readonly pages = new Map<number, { list: SortedJsonList<CatalogEntry>; etag?: string }>();

  constructor(
    private readonly store: StaticStore,
    private readonly clock: () => Date,
  ) {}

  /**
   * Sets the entries of `set` and removes the slugs of `remove`, writing the pages they are in,
   * then the index. A store with a catalog but no pages yet (written before pages existed) is
   * paged from its catalog first, once.
   */
  async patch(set: readonly CatalogEntry[], remove: readonly string[], lastWritten?: Record<string, string>): Promise<void> {
    const pages = new CatalogPages(await this.loadIndex(lastWritten));
    if (!this.index?.etag && pages.pages.length === 0) {
      const catalog = await this.previousCatalog();
      if (catalog.size > 0) await this.writePages(pages, pages.refill(catalog));
    }
    const needed = pages.pagesFor([...set.map((e) => e.slug), ...remove]);
    const loaded = await this.loadPages(pages, needed);
    await this.writePages(pages, pages.patch(loaded, set, remove));
  }

  /**
   * The full rebuild's catalog: `catalog` into the pages as they stand, writing only the pages
   * whose bytes changed (`existing`: the bucket's listing, key → MD5), then the index.
   */
  async replace(catalog: SortedJsonList<CatalogEntry>, existing: Map<string, string>): Promise<void> {
    const pages = new CatalogPages(await this.loadIndex());
    await this.writePages(pages, pages.refill(catalog), existing);
  }

  /**
   * The whole catalog and its compressed copies, from the pages the index names. Without the
   * lock (on a schedule), a page may change between the index and its read: each page must carry
   * the ETag its index names, or the index is read again (a few times, then the next schedule).
   */
  async assemble(lastWritten?: Record<string, string>): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const index = await this.loadIndex(lastWritten);
      if (!this.index?.etag) return;
      const pages = new CatalogPages(index);
      const loaded = await this.loadPages(pages, new Set(pages.pages.map((p) => p.page)));
      if (pages.pages.every((ref) => this.pages.get(ref.page)?.etag === ref.etag)) return this.writeAssembled(pages, loaded, index, this.index.etag);
      lastWritten = undefined;
    }
  }

  private async writeAssembled(pages: CatalogPages, loaded: Map<number, SortedJsonList<CatalogEntry>>, index: CatalogIndex, indexEtag: string): Promise<void> {
    const json = catalogJsonOfPages(
      pages.pages.map((ref) => loaded.get(ref.page)!),
      index.generatedAt,
    );
    const bytes = Buffer.from(json, 'utf8');
    const [br, gz] = await Promise.all([
      brotliAsync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength } }),
      gzipAsync(bytes, { level: 6 }),
    ]);
    const made = { [ASSEMBLED_FROM]: indexEtag };
    // The copies first: a reader that sees the new catalog finds its copies new too.
    await Promise.all([this.store.put(precompressedKey(CATALOG_KEY, 'br'), br, made), this.store.put(precompressedKey(CATALOG_KEY, 'gzip'), gz, made)]);
    await this.store.put(CATALOG_KEY, bytes, made);
  }

  /** {@link assemble}, unless the catalog was assembled from the index as it stands. */
  async assembleIfStale(): Promise<boolean> {
    const [stored, meta] = await Promise.all([this.store.getIfChanged(CATALOG_INDEX_KEY, this.index?.etag), this.store.metadata(CATALOG_KEY)]);
    if (stored === undefined) return false;
    const etag = stored === 'unchanged' ? this.index?.etag : stored.etag;
    if (meta?.[ASSEMBLED_FROM] === etag) return false;
    await this.assemble();
    return true;
  }

  /** The ETags of what this process last wrote, for the lock's memo. */
  etags(): Record<string, string> {
    return this.index?.etag ? { [CATALOG_INDEX_KEY]: this.index.etag } : {};
  }

  /** Drops what is held: after a failure part-way, the bucket may differ from it. */
  forget(): void {
    this.index = undefined;
    this.pages.clear();
  }

  /** The index as it stands (held when the memo or a 304 says so); empty when there is none, or it is damaged. */
  private async loadIndex(lastWritten?: Record<string, string>): Promise<CatalogIndex> {
    const held = this.index;
    if (held?.etag !== undefined && lastWritten?.[CATALOG_INDEX_KEY] === held.etag) return held.document;
    const stored = await this.store.getIfChanged(CATALOG_INDEX_KEY, held?.etag);
    if (stored === 'unchanged') return held!.document;
    const document = stored ? asIndex(parseJson(stored.bytes)) : undefined;
    if (!document) {
      this.forget();
      return emptyIndex(this.clock().toISOString());
    }
    this.index = { document, ...(stored?.etag ? { etag: stored.etag } : {}) };
    return document;
  }

  /**
   * The pages of `wanted`: held ones while the index names the ETag they were held with (nothing
   * to ask), else read conditionally. A damaged or missing page reads as empty.
   */
  private async loadPages(pages: CatalogPages, wanted: Set<number>) {
    const loaded = new Map<number, SortedJsonList<CatalogEntry>>();
    await Promise.all(
      pages.pages
        .filter((ref) => wanted.has(ref.page))
        .map(async (ref) => {
          const held = this.pages.get(ref.page);
          if (held && held.etag === ref.etag) return loaded.set(ref.page, held.list);
          const stored = await this.store.getIfChanged(catalogPageKey(ref.page), held?.etag);
          if (stored === 'unchanged') return loaded.set(ref.page, held!.list);
          const skills = stored ? (parseJson(stored.bytes) as { skills?: unknown } | undefined)?.skills : undefined;
          const list = catalogList(Array.isArray(skills) ? (skills as CatalogEntry[]).filter((e) => typeof e?.slug === 'string') : []);
          this.pages.set(ref.page, { list, ...(stored?.etag ? { etag: stored.etag } : {}) });
          loaded.set(ref.page, list);
        }),
    );
    return loaded;
  }

  /** Writes the changed pages side by side (unless `existing` says the bucket has those bytes), then the index. */
  private async writePages(pages: CatalogPages, changed: Map<number, SortedJsonList<CatalogEntry>>, existing?: Map<string, string>): Promise<void> {
    let wrote = false;
    await Promise.all(
      [...changed].map(async ([page, list]) => {
        const key = catalogPageKey(page);
        const json = catalogPageJson(page, list);
        const md5 = existing?.get(key);
        const unchanged = md5 !== undefined && md5 === md5Hex(json);
        const etag = unchanged ? `"${md5}"` : await this.store.put(key, json);
        wrote ||= !unchanged;
        pages.written(page, etag ?? '');
        this.pages.set(page, { list, ...(etag ? { etag } : {}) });
      }),
    );
    const held = this.index;
    const samePages = held?.etag !== undefined && existing?.has(CATALOG_INDEX_KEY) && canonicalJson(held.document.pages) === canonicalJson(pages.pages);
    if (!wrote && samePages) return; // a full rebuild that changed nothing: the index stays as it is
    const document = pages.index(this.clock().toISOString());
    const etag = await this.store.put(CATALOG_INDEX_KEY, catalogIndexJson(document));
    this.index = { document, ...(etag ? { etag } : {}) };
    for (const page of this.pages.keys()) if (!document.pages.some((ref) => ref.page === page)) this.pages.delete(page);
  }

  /** The catalog a store written before pages holds, to page it once. */
  private async previousCatalog(): Promise<SortedJsonList<CatalogEntry>> {
    const stored = await this.store.get(CATALOG_KEY);
    const skills = stored ? (parseJson(stored) as Partial<CatalogDocument> | undefined)?.skills : undefined;
    return catalogList(Array.isArray(skills) ? skills : []);
  }
}

/** The metadata naming the index ETag a catalog was assembled from. */
const ASSEMBLED_FROM = 'catalog-index';

const emptyIndex = (generatedAt: string): CatalogIndex => ({ schemaVersion: 1, generatedAt, count: 0, pageSize: 0, pages: [] });

/**
 * The index, when it has the shape the rebuild writes (core/schemas.ts catalogIndexSchema, checked
 * by hand: zod would add a fifth to the rebuild Lambda's cold start); undefined when damaged.
 */
function asIndex(value: unknown): CatalogIndex | undefined {
  const index = value as Partial<CatalogIndex> | undefined;
  if (index?.schemaVersion !== 1 || !Array.isArray(index.pages)) return undefined;
  const sound = index.pages.every(
    (ref) =>
      Number.isSafeInteger(ref?.page) && ref.page >= 0 && typeof ref.first === 'string' && typeof ref.etag === 'string' && Number.isSafeInteger(ref.count),
  );
  return sound ? (index as CatalogIndex) : undefined;
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return undefined;
  }
}

function md5Hex(text: string): string {
  return createHash('md5').update(text).digest('hex');
}
