import { authorPagePath, skillPagePath } from '#core/static-paths';

/** The fallback page, which renders any skill from its registry JSON in the browser. */
export const FALLBACK_PAGE = '/skills/_/';
/** The author fallback page, which lists any author's skills from the live catalog in the browser. */
export const AUTHOR_FALLBACK_PAGE = '/authors/_/';

/**
 * Where a list links a skill: its own page when the site build knew the skill as it is now,
 * else the fallback page, which works on any static host (no error-page rewriting needed).
 * `builtFrom` is the newest `updatedAt` the build saw.
 */
export function skillHref(skill: { slug: string; updatedAt: string }, builtFrom: string): string {
  return skill.updatedAt > builtFrom ? `${FALLBACK_PAGE}?slug=${encodeURIComponent(skill.slug)}` : skillPagePath(skill.slug);
}

/**
 * Where a list links a skill's author: their page when the build knew the skill as it is now
 * (so it knew the author), else the author fallback page, as {@link skillHref} does.
 */
export function authorHref(skill: { author: string; updatedAt: string }, builtFrom: string): string {
  return skill.updatedAt > builtFrom ? `${AUTHOR_FALLBACK_PAGE}?login=${encodeURIComponent(skill.author)}` : authorPagePath(skill.author);
}

/** The newest `updatedAt` among `skills` ('' for none): what "newer than the build" compares with. */
export function newestUpdate(skills: readonly { updatedAt: string }[]): string {
  let newest = '';
  for (const s of skills) if (s.updatedAt > newest) newest = s.updatedAt;
  return newest;
}
