import type * as z from 'zod/mini';
import type { installsDocumentSchema, publicInstallsSchema } from './schemas.ts';

/**
 * The public install counts (docs/api.md §11.8): for each listed skill, its distinct installs
 * (one per client per day, docs/api.md §10.2) in all, in the last 7 and in the last 30 days, the
 * figures anyone may see and the ranking uses. Everything else about installs (every delivery,
 * sources, clients, days) stays in the author's analytics.
 */
export type PublicInstalls = z.output<typeof publicInstallsSchema>;
export type InstallsDocument = z.output<typeof installsDocumentSchema>;

const NONE: PublicInstalls = { total: 0, last7d: 0, last30d: 0 };

/** The document for `counts` (by slug); skills nobody has installed are left out, to keep it small. */
export function installsDocument(
  counts: Iterable<readonly [slug: string, counts: z.input<typeof publicInstallsSchema>]>,
  generatedAt: string,
): InstallsDocument {
  const skills: Record<string, PublicInstalls> = {};
  for (const [slug, { total, last7d, last30d }] of counts) if (total > 0) skills[slug] = { total, last7d: last7d ?? 0, last30d };
  return { generatedAt, skills };
}

/** A skill's counts in `doc`: zero when it is not there (no installs, or newer than the document). */
export function installsOf(doc: InstallsDocument | undefined, slug: string): PublicInstalls {
  return (doc && Object.hasOwn(doc.skills, slug) ? doc.skills[slug] : undefined) ?? NONE;
}
