import { skillPagePath } from '#core/static-paths';

/** The fallback page, which renders any skill from its registry JSON in the browser. */
export const FALLBACK_PAGE = '/skills/_/';

/**
 * Where a list links a skill: its own page when the site build knew the skill as it is now,
 * else the fallback page, which works on any static host (no error-page rewriting needed).
 * `builtFrom` is the newest `updatedAt` the build saw.
 */
export function skillHref(skill: { slug: string; updatedAt: string }, builtFrom: string): string {
  return skill.updatedAt > builtFrom ? `${FALLBACK_PAGE}?slug=${encodeURIComponent(skill.slug)}` : skillPagePath(skill.slug);
}

/** The newest `updatedAt` among `skills` ('' for none): what "newer than the build" compares with. */
export function newestUpdate(skills: readonly { updatedAt: string }[]): string {
  let newest = '';
  for (const s of skills) if (s.updatedAt > newest) newest = s.updatedAt;
  return newest;
}
