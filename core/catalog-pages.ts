import type * as z from 'zod/mini';
import { type CatalogEntry, catalogList } from './catalog.ts';
import { canonicalJson } from './canonical-json.ts';
import type { catalogIndexSchema } from './schemas.ts';
import { type SortedJsonList, serialiseFragments } from './sorted-json-list.ts';
import { catalogPagePath } from './static-paths.ts';

/**
 * The catalog in pages (docs/api.md §11.5): runs of at most {@link CATALOG_PAGE_SIZE} skills in
 * slug order, each page a file of its own, and an index naming every page in order with its
 * first slug, count and ETag. A page covers a range of slugs, so a skill's entry is always in
 * the page whose range holds its slug: a write changes that page and the index, whatever the
 * number of skills. A page that grows past the size is cut in runs of {@link PAGE_FILL} (the
 * first keeping its id, so its path stays), leaving room to grow; a page left empty is dropped.
 */

export type CatalogIndex = z.output<typeof catalogIndexSchema>;
export type CatalogPageRef = CatalogIndex['pages'][number];

export const CATALOG_PAGE_SIZE = 500;
/** What a cut page holds: three quarters full, so the next writes do not cut it again. */
const PAGE_FILL = 375;

export class CatalogPages {
  private refs: CatalogPageRef[];

  constructor(index?: CatalogIndex) {
    this.refs = index ? index.pages.map((ref) => ({ ...ref })) : [];
  }

  /** The pages in slug order. */
  get pages(): readonly CatalogPageRef[] {
    return this.refs;
  }

  /** The pages that hold, or would take, the entries of `slugs`. */
  pagesFor(slugs: Iterable<string>): Set<number> {
    const pages = new Set<number>();
    for (const slug of slugs) {
      const at = this.positionOf(slug);
      if (at !== undefined) pages.add(this.refs[at]!.page);
    }
    return pages;
  }

  /**
   * Sets `set` and removes `remove` in `loaded` (which holds every page of {@link pagesFor} of
   * their slugs), cuts the pages that grew past the size and drops those left empty. Gives the
   * pages to write, in order; their ETags are unknown until {@link written}.
   */
  patch(loaded: Map<number, SortedJsonList<CatalogEntry>>, set: readonly CatalogEntry[], remove: readonly string[]): Map<number, SortedJsonList<CatalogEntry>> {
    const touched = new Map<number, SortedJsonList<CatalogEntry>>();
    const pageFor = (slug: string) => {
      if (this.refs.length === 0) this.refs.push({ page: 0, path: catalogPagePath(0), first: slug, count: 0, etag: '' });
      const ref = this.refs[this.positionOf(slug)!]!;
      let list = touched.get(ref.page) ?? loaded.get(ref.page);
      // Only the first page of an empty catalog is new; any other must have been loaded.
      if (!list && ref.count === 0 && ref.etag === '') list = catalogList();
      if (!list) throw new Error(`catalog page ${ref.page} is not loaded`);
      touched.set(ref.page, list);
      return list;
    };
    for (const slug of remove) if (this.refs.length > 0) pageFor(slug).delete(slug);
    for (const entry of set) pageFor(entry.slug).set(entry);
    return this.settle(touched);
  }

  /**
   * Every entry of `catalog` into the pages as they are (so that pages whose skills did not
   * change keep their bytes), then cut and drop as {@link patch} does. Gives every page.
   */
  refill(catalog: SortedJsonList<CatalogEntry>): Map<number, SortedJsonList<CatalogEntry>> {
    const lists = new Map<number, SortedJsonList<CatalogEntry>>(this.refs.map((ref) => [ref.page, catalogList()]));
    const slugs = catalog.keys();
    if (this.refs.length === 0 && slugs.length > 0) {
      this.refs.push({ page: 0, path: catalogPagePath(0), first: slugs[0]!, count: 0, etag: '' });
      lists.set(0, catalogList());
    }
    for (const slug of slugs) lists.get(this.refs[this.positionOf(slug)!]!.page)!.set(catalog.get(slug)!);
    return this.settle(lists);
  }

  /** The ETag page `page` was written with. */
  written(page: number, etag: string): void {
    const ref = this.refs.find((r) => r.page === page);
    if (ref) ref.etag = etag;
  }

  index(generatedAt: string): CatalogIndex {
    const count = this.refs.reduce((sum, ref) => sum + ref.count, 0);
    return { schemaVersion: 1, generatedAt, count, pageSize: CATALOG_PAGE_SIZE, pages: this.refs.map((ref) => ({ ...ref })) };
  }

  /** Cuts the full pages of `touched`, drops the empty ones, and updates their refs. */
  private settle(touched: Map<number, SortedJsonList<CatalogEntry>>): Map<number, SortedJsonList<CatalogEntry>> {
    const out = new Map<number, SortedJsonList<CatalogEntry>>();
    let nextPage = Math.max(-1, ...this.refs.map((r) => r.page)) + 1;
    const refs: CatalogPageRef[] = [];
    for (const ref of this.refs) {
      const list = touched.get(ref.page);
      if (!list) {
        refs.push(ref);
        continue;
      }
      if (list.size === 0) continue;
      const runs = list.size > CATALOG_PAGE_SIZE ? cut(list) : [list];
      for (const [i, run] of runs.entries()) {
        const page = i === 0 ? ref.page : nextPage++;
        refs.push({ page, path: catalogPagePath(page), first: run.keys()[0]!, count: run.size, etag: i === 0 ? ref.etag : '' });
        out.set(page, run);
      }
    }
    this.refs = refs;
    return out;
  }

  /** Where in {@link refs} a slug belongs: the last page starting at or before it, else the first. */
  private positionOf(slug: string): number | undefined {
    if (this.refs.length === 0) return undefined;
    let low = 0;
    let high = this.refs.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (this.refs[mid]!.first <= slug) low = mid;
      else high = mid - 1;
    }
    return low;
  }
}

/** A page's list in runs of about {@link PAGE_FILL}, of equal size within one. */
function cut(list: SortedJsonList<CatalogEntry>): SortedJsonList<CatalogEntry>[] {
  const keys = list.keys();
  const runs = Math.ceil(keys.length / PAGE_FILL);
  const size = Math.ceil(keys.length / runs);
  const out: SortedJsonList<CatalogEntry>[] = [];
  for (let start = 0; start < keys.length; start += size) out.push(catalogList(keys.slice(start, start + size).map((key) => list.get(key)!)));
  return out;
}

/** The bytes of page `page`. */
export function catalogPageJson(page: number, list: SortedJsonList<CatalogEntry>): string {
  return list.serialise({ schemaVersion: 1, page, count: list.size }, 'skills');
}

export function catalogIndexJson(index: CatalogIndex): string {
  return canonicalJson(index);
}

/**
 * The whole catalog (`/.well-known/skills.json`) from the pages in index order: the same bytes as
 * catalogJson of all their entries, joined from the pages' fragments without parsing them.
 */
export function catalogJsonOfPages(pages: readonly SortedJsonList<CatalogEntry>[], generatedAt: string): string {
  const count = pages.reduce((sum, list) => sum + list.size, 0);
  return serialiseFragments(
    { schemaVersion: 1, generatedAt, count },
    'skills',
    pages.map((list) => list.fragment()),
  );
}
