import { isValidRange } from './semver-range.ts';
import { SKILL_FILE } from './filename.ts';
import { isMapping } from './skill-front-matter.ts';
import { CATEGORY_PATTERN, isValidSlug, normaliseCategory } from './slug.ts';

/**
 * Skillpress's own keys in a `SKILL.md`: `category`, `slug` and `dependencies`. The Agent Skills
 * specification leaves clients one place for such keys, `metadata`, a mapping of text to text, so
 * they live there; dependencies are therefore written as one line of text:
 *
 * ```yaml
 * metadata:
 *   category: documents
 *   dependencies: pdf-tools@^1.2.0, other@1.0.0
 * ```
 *
 * Older skills put the keys at the top level (and `dependencies` as a mapping); they are still
 * read there, with a deprecation warning.
 */

export const SKILLPRESS_KEYS = ['category', 'slug', 'dependencies'] as const;
type SkillpressKey = (typeof SKILLPRESS_KEYS)[number];

const MAX_DEPENDENCIES = 32;

/**
 * The warning for a Skillpress key found at the top level. The conformance check gives the same
 * text for the same key, so a caller that shows both lists can merge them without repeats.
 */
export function topLevelKeyWarning(key: SkillpressKey): string {
  const example = key === 'dependencies' ? 'dependencies: pdf-tools@^1.2.0, other@1.0.0' : `${key}: …`;
  return `"${key}" at the top level of the ${SKILL_FILE} front matter is deprecated and not an Agent Skills key: move it under metadata ("metadata:" then "  ${example}")`;
}

export const isSkillpressKey = (key: string): key is SkillpressKey => (SKILLPRESS_KEYS as readonly string[]).includes(key);

/**
 * Writes dependencies as `slug@range` entries joined by `, ` in the mapping's order. Slugs hold
 * no `@` and semver ranges hold neither `@` nor `,`, so the text splits back unambiguously.
 * Throws on an entry that could not be read back: that is a caller's bug, not user input.
 */
export function formatDependencies(dependencies: Record<string, string>): string {
  return Object.entries(dependencies)
    .map(([slug, range]) => {
      if (!isValidSlug(slug) || !isValidRange(range) || range.includes(',') || range.trim() !== range) {
        throw new RangeError(`cannot encode the dependency ${JSON.stringify(slug)}: ${JSON.stringify(range)}`);
      }
      return `${slug}@${range}`;
    })
    .join(', ');
}

export interface ParsedDependencies {
  dependencies: Record<string, string>;
  /** What is wrong with the text, one sentence each; the mapping then holds only the good entries. */
  problems: string[];
}

/**
 * Reads `pdf-tools@^1.2.0, other@1.0.0`: entries separated by commas, each a skill slug, `@`,
 * and a semver range (which may hold spaces, as in `>=1.2.0 <2`). Blank text means none. Each
 * malformed entry, a repeated slug and more than 32 entries are problems.
 */
export function parseDependencies(text: string): ParsedDependencies {
  const dependencies: Record<string, string> = {};
  const problems: string[] = [];
  if (text.trim() === '') return { dependencies, problems };
  const entries = text.split(',').map((entry) => entry.trim());
  for (const [index, entry] of entries.entries()) {
    const at = entry.indexOf('@');
    const slug = at < 0 ? entry : entry.slice(0, at).trim();
    const range = at < 0 ? '' : entry.slice(at + 1).trim();
    if (entry === '') problems.push(`entry ${index + 1} is empty (two commas in a row, or a comma at an end)`);
    // semver reads an empty range as "any"; here it is an entry left unfinished.
    else if (at < 0 || range === '')
      problems.push(`"${entry}" needs a version range: write ${isValidSlug(slug) ? `${slug}@^1.0.0` : 'slug@range, e.g. pdf-tools@^1.2.0'}`);
    else if (!isValidSlug(slug)) problems.push(`"${slug}" is not a skill slug (lower-case letters, digits and hyphens, 1 to 64)`);
    else if (!isValidRange(range)) problems.push(`"${range}" (for ${slug}) is not a semver range such as ^1.2.0`);
    else if (Object.hasOwn(dependencies, slug)) problems.push(`${slug} is listed twice`);
    else dependencies[slug] = range;
  }
  if (entries.length > MAX_DEPENDENCIES) problems.push(`at most ${MAX_DEPENDENCIES} dependencies, found ${entries.length}`);
  return { dependencies, problems };
}

export interface SkillpressKeys {
  category?: string;
  slug?: string;
  dependencies: Record<string, string>;
  /** What the author should fix: a deprecated place, or a value that is not read and why. */
  warnings: string[];
}

/**
 * Reads `category`, `slug` and `dependencies` from a parsed front matter: from `metadata` first,
 * else from the top level with a deprecation warning (a top-level key that `metadata` also sets is
 * ignored). The category comes back normalised as the API normalises it. `name` and `description`
 * are Agent Skills keys; the conformance check reads those.
 *
 * Nothing here refuses a skill. Other tools write keys of these names in their own forms (a list
 * of Python packages as `dependencies`, a category such as "Security & Testing"), and the registry
 * publishes such a skill as it is: a value that is not in Skillpress's form is named in a warning
 * and not read, so the skill is published without it (and filed under the default category).
 */
export function readSkillpressKeys(frontMatter: Record<string, unknown>): SkillpressKeys {
  const result: SkillpressKeys = { dependencies: {}, warnings: [] };
  const metadata = isMapping(frontMatter.metadata) ? frontMatter.metadata : {};
  const unread = (path: string[], why: string) => result.warnings.push(`${path.join('.')} is not read: ${why}`);
  const find = (key: SkillpressKey): { value: unknown; path: string[] } | undefined => {
    const topLevel = Object.hasOwn(frontMatter, key);
    if (topLevel) result.warnings.push(topLevelKeyWarning(key));
    if (Object.hasOwn(metadata, key)) return { value: metadata[key], path: ['metadata', key] };
    return topLevel ? { value: frontMatter[key], path: [key] } : undefined;
  };

  const category = find('category');
  if (category) {
    const value = typeof category.value === 'string' ? normaliseCategory(category.value) : undefined;
    if (value !== undefined && CATEGORY_PATTERN.test(value)) result.category = value;
    else unread(category.path, 'a category is text of 1 to 40 letters, digits, hyphens or spaces, e.g. "documents"');
  }

  const slug = find('slug');
  if (slug) {
    const value = typeof slug.value === 'string' ? slug.value.trim() : undefined;
    if (value === undefined || !isValidSlug(value)) unread(slug.path, 'a slug is text of lower-case letters and digits, joined by single hyphens, 1 to 64');
    else if (typeof frontMatter.name === 'string' && frontMatter.name !== value)
      unread(slug.path, `"${value}" differs from the name "${frontMatter.name}", which is the skill's slug: drop this key or make them equal`);
    else result.slug = value;
  }

  const dependencies = find('dependencies');
  if (dependencies) {
    const problems = readDependencies(dependencies.value, dependencies.path.length === 1, result.dependencies);
    if (problems.length > 0) {
      result.dependencies = {};
      unread(dependencies.path, `${problems.join('; ')} (Skillpress's form is "pdf-tools@^1.2.0, other@1.0.0")`);
    }
  }
  return result;
}

/**
 * Reads dependencies into `into` and returns what is wrong with them: text in the encoding of
 * {@link parseDependencies}, or at the top level the old mapping of slug to range.
 */
function readDependencies(value: unknown, topLevel: boolean, into: Record<string, string>): string[] {
  if (typeof value === 'string') {
    const parsed = parseDependencies(value);
    Object.assign(into, parsed.dependencies);
    return parsed.problems;
  }
  if (!topLevel || !isMapping(value)) return ['dependencies are one line of text'];
  const problems: string[] = [];
  if (Object.keys(value).length > MAX_DEPENDENCIES) problems.push(`at most ${MAX_DEPENDENCIES} dependencies, found ${Object.keys(value).length}`);
  for (const [name, range] of Object.entries(value)) {
    if (!isValidSlug(name)) problems.push(`"${name}" is not a skill slug`);
    else if (typeof range !== 'string' || !isValidRange(range))
      problems.push(`${name}: ${typeof range === 'string' ? `"${range}"` : 'that value'} is not a semver range such as ^1.2.0`);
    else into[name] = range;
  }
  return problems;
}
