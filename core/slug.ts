/**
 * Slugs name a skill in registry paths and install folders: 1 to 64 lower-case ASCII letters and
 * digits in runs joined by single hyphens (no leading, trailing or doubled hyphen), as the Agent
 * Skills specification requires of a skill's name.
 */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SLUG_MAX = 64;

/**
 * Derives a slug from a display name: accents folded to ASCII, everything else that is not a
 * letter or digit becomes a hyphen, runs of hyphens collapse, and the result is cut to 64.
 * Returns '' when nothing usable remains (the caller then asks for an explicit slug).
 */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX)
    .replace(/-+$/g, '');
}

export function isValidSlug(slug: string): boolean {
  return slug.length <= SLUG_MAX && SLUG_PATTERN.test(slug);
}

/** Categories are labels: trimmed, lower-case, spaces to hyphens (docs/api.md §7). */
export function normaliseCategory(category: string): string {
  return category.trim().toLowerCase().replace(/\s+/g, '-');
}

export const CATEGORY_PATTERN = /^[a-z0-9-]{1,40}$/;

/**
 * The category of a new skill whose publish and `SKILL.md` name none, wherever it is published
 * from (docs/api.md §7.4).
 */
export const DEFAULT_CATEGORY = 'general';
