import { writeFrontMatter } from '#core/skill-front-matter';

/** A `SKILL.md` whose front matter names `slug` (so it is a valid Agent Skill for that skill), then `body`. */
export function skillMd(slug: string, body = '', description = 'Formats things nicely'): string {
  return writeFrontMatter({ name: slug, description }, body);
}

/** {@link skillMd} as a file object of a publish or version body. */
export const skillFile = (slug: string, body = '', description?: string) => ({ filename: 'SKILL.md', content: skillMd(slug, body, description) });

/** `text`, a `SKILL.md` with front matter, renamed so that it is the `SKILL.md` of the skill `slug`. */
export const renamedSkillMd = (text: string, slug: string) => text.replace(/^name: .*$/m, `name: ${slug}`);
