import { writeFrontMatter } from '../core/skill-front-matter.ts';
import { TEMPLATE_DESCRIPTION } from './skill-folder.ts';

/**
 * The `SKILL.md` that `skillpress init` writes: a valid Agent Skill from the first keystroke,
 * with the places to fill in said in the file itself. Its placeholder description is refused by
 * `publish` and `version` (`assertDescribed`: nobody means to publish it).
 */

export interface TemplateFields {
  slug: string;
  description?: string;
  category?: string;
}

export function skillTemplate({ slug, description, category }: TemplateFields): string {
  const title = slug
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
  const front = {
    name: slug,
    description: description ?? TEMPLATE_DESCRIPTION,
    ...(category ? { metadata: { category } } : {}),
  };
  const categoryNote = category ? '' : ' Without a\ncategory under metadata ("metadata:" then "  category: dev-tools"), it is published in "general".';
  return writeFrontMatter(
    front,
    `
# ${title}

<!-- The description above is what agents read to decide when to load this skill: say what it
does and when to use it ("Formats JSON files. Use when a JSON file is mentioned.").${categoryNote}
Everything below is read once the skill is loaded. -->

## When to use

The tasks, files and words that should bring this skill in.

## Instructions

What the agent should do, step by step.

## Files

Scripts, references and assets in this folder are published with it; refer to them by their
relative path (for example \`scripts/run.sh\`). A .skillignore leaves files out.
`,
  );
}
