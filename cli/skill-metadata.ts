import { SKILL_FILE } from '../core/filename.ts';
import { checkSkillConformance, type SkillFile } from '../core/skill-conformance.ts';
import { headingName, readFrontMatter } from '../core/skill-front-matter.ts';
import { listingDescription } from '../core/skill-listing.ts';
import { readSkillpressKeys } from '../core/skillpress-metadata.ts';
import { CliError } from './cli-error.ts';
import type { SkillFolder } from './skill-folder.ts';

/**
 * What a folder's `SKILL.md` says about publishing it, checked as the registry checks a version
 * (docs/agent-skills.md: the same validator in `core/`): the slug, the display name, the
 * description, Skillpress's own keys under `metadata`, and what the front matter should fix.
 */

/**
 * The publishing facts of a folder's files, or `invalid_skill` with every problem the registry
 * would give. The description is the listing's, on one line, as the registry makes it of a
 * `SKILL.md` whose description is a `|` or `>` block. Skillpress's own keys refuse nothing: what
 * is not in their form is a warning (core/skillpress-metadata.ts). Pure.
 */
export function skillMetadata(files: readonly SkillFile[], slug?: string): Omit<SkillFolder, 'files' | 'bytes' | 'skipped'> {
  const conformance = checkSkillConformance(files, slug);
  if (conformance.issues.length > 0 || !conformance.frontMatter || conformance.description === undefined) {
    throw new CliError('invalid_skill', `${SKILL_FILE} is not a valid Agent Skill, so the registry would refuse it`, {
      details: { issues: conformance.issues },
      hint: `---\nname: pretty-json\ndescription: Formats JSON files. Use when a JSON file is mentioned.\nmetadata:\n  category: dev-tools\n---\n# Pretty JSON`,
    });
  }
  const keys = readSkillpressKeys(conformance.frontMatter);
  const name = String(conformance.frontMatter.name);
  // The conformance check reads the same key at the top level with the same words: shown once.
  const warnings = [...new Set([...conformance.warnings, ...keys.warnings])];
  const source = Buffer.from(files.find((f) => f.filename === SKILL_FILE)!.bytes).toString('utf8');
  return {
    slug: name,
    name: headingName(readFrontMatter(source).body) ?? name,
    description: listingDescription(conformance.description),
    ...(keys.category ? { category: keys.category } : {}),
    dependencies: keys.dependencies,
    warnings,
  };
}
