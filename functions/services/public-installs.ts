import type { CatalogDocument } from '#core/catalog';
import { canonicalJson } from '#core/canonical-json';
import { ANALYTICS_DAYS, lastUtcDays, summariseInstalls, utcDay } from '#core/install-analytics';
import { mapLimit } from '#core/map-limit';
import { type InstallsDocument, installsDocument, type PublicInstalls } from '#core/public-installs';
import { CATALOG_KEY, INSTALLS_KEY } from '#core/static-paths';
import type { Deps } from '../platform/composition.ts';
import { readDownloads, scanDownloads } from '../store/downloads.ts';
import { installedSince, WINDOW_MS } from '../store/recent-installs.ts';

type PublicInstallsDeps = Pick<Deps, 'db' | 'staticStore' | 'clock' | 'downloads' | 'log'>;

/**
 * Writes the public install counts of every skill in the catalog to the static file the site
 * build reads (docs/api.md §11.8): its distinct installs (docs/api.md §10.2) of all time, of the
 * last 7 and of the last 30 UTC days. Installs are not table writes the rebuild follows (they would
 * rewrite a file per delivery), so the file is made when a site build is about to read it (the
 * counts on the site are as fresh as the site itself), and refreshed every 5 minutes between
 * ({@link refreshInstallCounts}). It costs one pass over the table's install counters (a parallel
 * scan).
 */
export async function publishInstallCounts(deps: PublicInstallsDeps): Promise<{ skills: number }> {
  // Counts still held in memory (the local runtime writes them just after the delivery) first.
  await deps.downloads.written();
  const listed = await listedSkills(deps);
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

/**
 * The 5-minute refresh of the public counts (the `public-installs` Lambda; a timer locally):
 * only the skills installed since the last file (the counter marks them, store/recent-installs.ts)
 * are read again, a query each, and the rest of the last file is kept, for skills the catalog
 * still lists. A full pass ({@link publishInstallCounts}) instead when there is no last file,
 * when it is from an earlier UTC day (every skill's last 7 and 30 days move at midnight) or
 * older than {@link FULL_PASS_AFTER_MS}.
 */
export async function refreshInstallCounts(deps: PublicInstallsDeps): Promise<{ skills: number; read: number | 'all' }> {
  await deps.downloads.written();
  const now = deps.clock();
  const last = await lastDocument(deps);
  const since = last ? Date.parse(last.generatedAt) : Number.NaN;
  if (!last || !(since <= now.getTime()) || now.getTime() - since > FULL_PASS_AFTER_MS || utcDay(new Date(since)) !== utcDay(now)) {
    return { ...(await publishInstallCounts(deps)), read: 'all' };
  }
  const listed = await listedSkills(deps);
  // From one window before the last file: a mark written just after that file read the counts.
  const changed = await installedSince(deps.db, since - WINDOW_MS, now.getTime());
  const days = lastUtcDays(now, ANALYTICS_DAYS);
  const fresh = new Map<string, PublicInstalls>();
  await mapLimit(
    listed.filter((skill) => changed.has(skill.id)),
    8,
    async (skill) => {
      try {
        const { days: buckets, totals } = await readDownloads(deps.db, skill.id, days[0]!, days.at(-1)!);
        fresh.set(skill.slug, summariseInstalls(now, buckets, totals).distinct);
      } catch (error) {
        // A damaged counter keeps the skill's last figures until it is repaired.
        deps.log.warn('install counters not read for the public counts', { skillId: skill.id, error: (error as Error).name });
      }
    },
  );
  const counts = listed.flatMap((skill) => {
    const found = fresh.get(skill.slug) ?? (Object.hasOwn(last.skills, skill.slug) ? last.skills[skill.slug] : undefined);
    return found ? [[skill.slug, found] as const] : [];
  });
  await deps.staticStore.put(INSTALLS_KEY, canonicalJson(installsDocument(counts, now.toISOString())));
  return { skills: listed.length, read: fresh.size };
}

/** A last file older than this is not patched but made again (a refresh missed for an hour). */
const FULL_PASS_AFTER_MS = 60 * 60 * 1000;

/**
 * The skills the catalog lists: the rebuild's own output, trusted as typed as the rebuild trusts
 * it (the Lambdas that run this leave the zod schemas out of their bundles).
 */
async function listedSkills(deps: PublicInstallsDeps): Promise<CatalogDocument['skills']> {
  const bytes = await deps.staticStore.get(CATALOG_KEY);
  return bytes ? (JSON.parse(Buffer.from(bytes).toString('utf8')) as CatalogDocument).skills : [];
}

/** The last public counts file, this code's own output; undefined when there is none or it does not read. */
async function lastDocument(deps: PublicInstallsDeps): Promise<InstallsDocument | undefined> {
  const bytes = await deps.staticStore.get(INSTALLS_KEY);
  if (!bytes) return undefined;
  try {
    const doc = JSON.parse(Buffer.from(bytes).toString('utf8')) as InstallsDocument;
    return typeof doc.generatedAt === 'string' && doc.skills && typeof doc.skills === 'object' ? doc : undefined;
  } catch {
    return undefined;
  }
}
