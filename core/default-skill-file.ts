import type { WireFile } from './bundle.ts';
import { SKILL_FILE } from './filename.ts';
import { writeFrontMatter } from './skill-front-matter.ts';

/**
 * The `SKILL.md` the server writes when a publish sends no files, so that every published skill
 * is a valid Agent Skill: `name` is the slug, `description` the skill's, and the body a heading
 * with its display name. The `yaml` package writes the values, so any description (quotes,
 * colons, a leading `-` or `#`, line breaks, any script) reads back exactly.
 */
export function defaultSkillFile(skill: { slug: string; name: string; description: string }): WireFile {
  return { filename: SKILL_FILE, content: writeFrontMatter({ name: skill.slug, description: skill.description }, `\n# ${skill.name}\n`) };
}
