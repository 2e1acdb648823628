import { SKILL_FILE } from '../core/filename.ts';
import { checkSkillConformance, type SkillFile } from '../core/skill-conformance.ts';
import { headingName, readFrontMatter, type SkillIssue } from '../core/skill-front-matter.ts';
import { readSkillpressKeys } from '../core/skillpress-metadata.ts';
import { CliError } from './cli-error.ts';
import type { SkillFolder } from './skill-folder.ts';

/**
 * What a folder's `SKILL.md` says about publishing it, checked as the registry checks a version
 * (docs/agent-skills.md: the same validator in `core/`): the slug, the display name, the
 * description, Skillpress's own keys under `metadata`, and what the front matter should fix.
 */

/** The publishing facts of a folder's files, or `invalid_skill` with every problem. Pure. */
export function skillMetadata(files: readonly SkillFile[], slug?: string): Omit<SkillFolder, 'files' | 'bytes' | 'skipped'> {
  const conformance = checkSkillConformance(files, slug);
  const keys = conformance.frontMatter ? readSkillpressKeys(conformance.frontMatter) : undefined;
  const issues: SkillIssue[] = [...conformance.issues, ...(keys?.issues ?? [])];
  if (issues.length > 0 || !conformance.frontMatter || conformance.description === undefined) {
    throw new CliError('invalid_skill', `${SKILL_FILE} is not a valid Agent Skill, so the registry would refuse it`, {
      details: { issues },
      hint: `---\nname: pretty-json\ndescription: Formats JSON files. Use when a JSON file is mentioned.\nmetadata:\n  category: dev-tools\n---\n# Pretty JSON`,
    });
  }
  const name = String(conformance.frontMatter.name);
  // The conformance check reads the same key at the top level with the same words: shown once.
  const warnings = [...new Set([...conformance.warnings, ...keys!.warnings])];
  const source = Buffer.from(files.find((f) => f.filename === SKILL_FILE)!.bytes).toString('utf8');
  return {
    slug: name,
    name: headingName(readFrontMatter(source).body) ?? name,
    description: conformance.description,
    ...(keys!.category ? { category: keys!.category } : {}),
    dependencies: keys!.dependencies,
    warnings,
  };
}
