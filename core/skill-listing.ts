import type { WireFile } from './bundle.ts';
import { SKILL_FILE } from './filename.ts';
import { visibleText } from './schema-fields.ts';
import { readFrontMatter } from './skill-front-matter.ts';
import { readSkillpressKeys } from './skillpress-metadata.ts';

/**
 * What a new skill is listed with when the request leaves it out, read from its `SKILL.md` the
 * same way wherever a skill comes from: `skillpress publish` and `publish --all`, a publish
 * without a category, ClawHub's clients (which send neither a description nor a category). It
 * parses YAML, so the server loads it when a publish needs it, not at every cold start.
 */

/** A skill's description as the JSON publish takes it (docs/api.md §7.4). */
const descriptionSchema = visibleText(1024);

export interface Listing {
  /** The `SKILL.md` description on one line, when it makes a valid listing description. */
  description?: string;
  /** `metadata.category` (else a well-formed top-level `category`), normalised; else none. */
  category?: string;
}

/**
 * The listing description a `SKILL.md` description makes: every run of white space becomes one
 * space, so a folded (`>`) or literal (`|`) block scalar, whose text holds line breaks, reads as
 * the one line the listing is.
 */
export function listingDescription(description: string): string {
  return description.replace(/\s+/g, ' ').trim();
}

/** The listing a parsed front matter gives. */
export function listingOf(frontMatter: Record<string, unknown> | undefined): Listing {
  if (!frontMatter) return {};
  const description = typeof frontMatter.description === 'string' ? listingDescription(frontMatter.description) : '';
  const { category } = readSkillpressKeys(frontMatter);
  return {
    ...(descriptionSchema.safeParse(description).success ? { description } : {}),
    ...(category ? { category } : {}),
  };
}

/** {@link listingOf} the `SKILL.md` among the files sent as JSON, when there is one in text. */
export function listingFromSkillFile(files: readonly WireFile[]): Listing {
  const skillFile = files.find((file) => file.filename === SKILL_FILE && file.encoding === undefined);
  return listingOf(skillFile ? readFrontMatter(skillFile.content).data : undefined);
}
