import type { WireFile } from './bundle.ts';
import { SKILL_FILE } from './filename.ts';
import { readFrontMatter } from './skill-front-matter.ts';
import { visibleText } from './schema-fields.ts';
import { readSkillpressKeys } from './skillpress-metadata.ts';

/**
 * What a new skill published from ClawHub's client (`POST /api/v1/skills`) needs and ClawHub does
 * not send: a description and a category, read from its `SKILL.md` front matter, where an Agent
 * Skill keeps them anyway (docs/agent-skills.md). It parses YAML, so its callers load it when a
 * new skill needs it, not at every cold start.
 */

/** A skill's description as the JSON publish takes it (docs/api.md §7.4). */
const descriptionSchema = visibleText(1024);

/** A skill without a category in its `SKILL.md` is filed here. */
export const DEFAULT_CATEGORY = 'other';

/**
 * The description (`description`, on one line) and category (`metadata.category`, else
 * {@link DEFAULT_CATEGORY}) of a new skill, from its `SKILL.md`. The description is undefined
 * when there is no readable one of at most 1024 characters: the caller refuses the publish, saying where it is looked for.
 */
export function listingFromSkillFile(files: readonly WireFile[]): { description?: string; category: string } {
  const skillFile = files.find((file) => file.filename === SKILL_FILE && file.encoding === undefined);
  const data = skillFile ? readFrontMatter(skillFile.content).data : undefined;
  if (!data) return { category: DEFAULT_CATEGORY };
  const description = typeof data.description === 'string' ? data.description.replace(/\s+/g, ' ').trim() : '';
  return {
    ...(descriptionSchema.safeParse(description).success ? { description } : {}),
    category: readSkillpressKeys(data).category ?? DEFAULT_CATEGORY,
  };
}
