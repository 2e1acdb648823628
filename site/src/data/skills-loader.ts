import type { Loader } from 'astro/loaders';
import type { CatalogEntry } from '#core/catalog';
import { mapLimit } from '#core/map-limit';
import type { StaticSource } from './source.ts';

/**
 * The `skills` collection: one entry per catalog skill, holding its registry document.
 * Incremental: Astro keeps the collection between builds (in its cacheDir), so only skills whose
 * catalog entry changed since the last build have their registry document read again. The
 * debounced rebuild after a write therefore reads a handful of documents, not all of them.
 */
export function skillsLoader(source: StaticSource): Loader {
  return {
    name: 'skillpress-skills',
    load: async ({ store, logger }) => {
      const catalog = await source.catalog();
      const entries = catalog?.skills ?? [];
      const listed = new Set(entries.map((e) => e.slug));
      for (const id of store.keys()) if (!listed.has(id)) store.delete(id);
      const stale = entries.filter((e) => store.get(e.slug)?.digest !== digest(e));
      let missing = 0;
      await mapLimit(stale, 16, async (entry) => {
        const doc = await source.registry(entry.slug);
        if (!doc) {
          missing += 1;
          return;
        }
        store.set({ id: entry.slug, data: doc, digest: digest(entry) });
      });
      logger.info(`${entries.length} skills from ${source.description}; ${stale.length - missing} registry documents read${missing ? `, ${missing} missing` : ''}`);
    },
  };
}

/** What the catalog says about a skill that changes whenever its registry document does. */
function digest(entry: CatalogEntry): string {
  return `${entry.updatedAt}|${entry.currentVersion}`;
}
