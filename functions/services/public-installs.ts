import type { CatalogDocument } from '#core/catalog';
import { canonicalJson } from '#core/canonical-json';
import { ANALYTICS_DAYS, lastUtcDays, summariseInstalls } from '#core/install-analytics';
import { installsDocument } from '#core/public-installs';
import { CATALOG_KEY, INSTALLS_KEY } from '#core/static-paths';
import type { Deps } from '../platform/composition.ts';
import { scanDownloads } from '../store/downloads.ts';

/**
 * Writes the public install counts of every skill in the catalog to the static file the site
 * build reads (docs/api.md §11.8): its distinct installs (docs/api.md §10.2) of all time, of the
 * last 7 and of the last 30 UTC days. Installs are not table writes the rebuild follows (they would
 * rewrite a file per delivery), so the file is made when a site build is about to read it: the
 * counts on the site are as fresh as the site itself. It costs one pass over the table's install
 * counters (a parallel scan), at most once per site build.
 */
export async function publishInstallCounts(deps: Pick<Deps, 'db' | 'staticStore' | 'clock' | 'downloads' | 'log'>): Promise<{ skills: number }> {
  // Counts still held in memory (the local runtime writes them just after the delivery) first.
  await deps.downloads.written();
  // The rebuild's own output, trusted as typed as the rebuild trusts it: the Lambdas that run
  // this leave the zod schemas out of their bundles.
  const bytes = await deps.staticStore.get(CATALOG_KEY);
  const listed = bytes ? (JSON.parse(Buffer.from(bytes).toString('utf8')) as CatalogDocument).skills : [];
  const now = deps.clock();
  const days = lastUtcDays(now, ANALYTICS_DAYS);
  const { counts: counters, damaged } = await scanDownloads(deps.db, days[0]!);
  // Their public counts stay out until the item is repaired; every other skill's are current.
  if (damaged.length > 0) deps.log.warn('install counters damaged: left out of the public counts', { skills: damaged.length, skillIds: damaged.slice(0, 20) });
  const counts = listed.flatMap((skill) => {
    const found = counters.get(skill.id);
    if (!found) return [];
    const { distinct } = summariseInstalls(now, found.days, found.totals);
    return [[skill.slug, distinct] as const];
  });
  await deps.staticStore.put(INSTALLS_KEY, canonicalJson(installsDocument(counts, now.toISOString())));
  return { skills: listed.length };
}
