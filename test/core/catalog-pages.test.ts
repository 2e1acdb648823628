import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CatalogEntry, catalogJson, catalogList } from '#core/catalog';
import { CATALOG_PAGE_SIZE, CatalogPages, catalogJsonOfPages, catalogPageJson } from '#core/catalog-pages';
import type { SortedJsonList } from '#core/sorted-json-list';

const entry = (slug: string, version = '1.0.0'): CatalogEntry => ({
  id: `id-${slug}`,
  slug,
  name: slug,
  description: `About ${slug}`,
  category: 'tools',
  author: 'ann',
  currentVersion: version,
  paid: false,
  updatedAt: '2026-11-01T00:00:00.000Z',
  registry: `/api/registry/${slug}`,
});
const slugOf = (i: number) => `skill-${String(i).padStart(6, '0')}`;

/** The pages of `pages` as lists, in index order, applying writes through patch as a rebuild does. */
class Harness {
  readonly pages = new CatalogPages();
  readonly lists = new Map<number, SortedJsonList<CatalogEntry>>();
  written: number[] = [];

  write(set: CatalogEntry[], remove: string[] = []): void {
    const needed = this.pages.pagesFor([...set.map((e) => e.slug), ...remove]);
    const loaded = new Map([...needed].map((page) => [page, this.lists.get(page)!]));
    const changed = this.pages.patch(loaded, set, remove);
    this.written = [...changed.keys()];
    for (const [page, list] of changed) {
      this.lists.set(page, list);
      this.pages.written(page, `"etag-${page}-${list.size}"`);
    }
  }

  inOrder(): SortedJsonList<CatalogEntry>[] {
    return this.pages.pages.map((ref) => this.lists.get(ref.page)!);
  }
}

describe('CatalogPages', () => {
  it('writes one page per write, whatever the number of skills, cutting a full page in two', () => {
    const h = new Harness();
    for (let i = 0; i < 2000; i++) {
      h.write([entry(slugOf((i * 7919) % 2000))]);
      expect(h.written.length, `write ${i}`).toBeLessThanOrEqual(2);
    }
    const index = h.pages.index('2026-11-28T00:00:00.000Z');
    expect(index.count).toBe(2000);
    expect(index.pages.length).toBeGreaterThanOrEqual(Math.ceil(2000 / CATALOG_PAGE_SIZE));
    for (const ref of index.pages) {
      expect(ref.count).toBeLessThanOrEqual(CATALOG_PAGE_SIZE);
      expect(ref.path).toBe(`/catalog/page-${ref.page}.json`);
      expect(ref.first).toBe(h.lists.get(ref.page)!.keys()[0]);
    }
    // An update of a skill in the middle rewrites its page only.
    h.write([entry(slugOf(1234), '2.0.0')]);
    expect(h.written).toHaveLength(1);
    expect(h.lists.get(h.written[0]!)!.get(slugOf(1234))!.currentVersion).toBe('2.0.0');
  });

  it('reads, page after page in index order, exactly the catalog of all their entries', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.boolean()), { maxLength: 1500 }), (ops) => {
        const h = new Harness();
        const all = catalogList();
        for (const [n, remove] of ops) {
          const slug = slugOf(n);
          if (remove) {
            h.write([], [slug]);
            all.delete(slug);
          } else {
            h.write([entry(slug)]);
            all.set(entry(slug));
          }
        }
        const at = '2026-11-28T00:00:00.000Z';
        expect(catalogJsonOfPages(h.inOrder(), at)).toBe(catalogJson(all, at));
        for (const ref of h.pages.pages) expect(ref.count).toBeGreaterThan(0);
      }),
      { numRuns: 30 },
    );
  });

  it('refills the pages as they stand, so a full rebuild leaves unchanged pages byte for byte', () => {
    const h = new Harness();
    for (let i = 0; i < 1500; i++) h.write([entry(slugOf((i * 31) % 1500))]);
    const before = new Map(h.pages.pages.map((ref) => [ref.page, catalogPageJson(ref.page, h.lists.get(ref.page)!)]));
    const all = catalogList([...h.lists.values()].flatMap((list) => [...list.values()]));
    all.set(entry(slugOf(700), '3.0.0'));
    const refilled = new CatalogPages(h.pages.index('x')).refill(all);
    const changed = [...refilled].filter(([page, list]) => before.get(page) !== catalogPageJson(page, list));
    expect(changed).toHaveLength(1);
    expect(changed[0]![1].get(slugOf(700))!.currentVersion).toBe('3.0.0');
  });

  it('pages a whole catalog from nothing in pages three quarters full', () => {
    const all = catalogList(Array.from({ length: 10_000 }, (_, i) => entry(slugOf(i))));
    const pages = new CatalogPages();
    const lists = pages.refill(all);
    expect(lists.size).toBe(Math.ceil(10_000 / 375));
    expect(pages.pages.map((ref) => ref.page)).toEqual([...lists.keys()]);
    expect(catalogJsonOfPages([...lists.values()], 'x')).toBe(catalogJson(all, 'x'));
  });

  it('drops a page left empty and keeps the others', () => {
    const h = new Harness();
    for (let i = 0; i < 600; i++) h.write([entry(slugOf(i))]);
    const [first] = h.pages.pages;
    const slugs = [...h.lists.get(first!.page)!.keys()];
    h.write([], slugs);
    expect(h.pages.pages.some((ref) => ref.page === first!.page)).toBe(false);
    expect(h.pages.index('x').count).toBe(600 - slugs.length);
  });
});
