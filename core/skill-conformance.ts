import type { FileBytes } from './bundle.ts';
import { SKILL_FILE } from './filename.ts';
import { isMapping, keyPath, readFrontMatter, type SkillIssue } from './skill-front-matter.ts';
import { isValidSlug, SLUG_MAX } from './slug.ts';
import { isSkillpressKey, topLevelKeyWarning } from './skillpress-metadata.ts';

/**
 * Whether a version's files are a valid Agent Skill (docs/agent-skills.md): a `SKILL.md` at the
 * root whose YAML front matter names the skill by its slug and describes it, with the optional
 * keys of the specification well typed. The rules follow the reference validator (`skills-ref`)
 * and what the `skills` CLI silently drops, so whatever passes here installs everywhere. Every
 * problem is listed, not only the first; keys the specification does not define are warnings.
 */

export interface SkillConformance {
  /** Each problem; the files conform when this is empty. */
  issues: SkillIssue[];
  /** Accepted, but worth telling the author (unknown keys, a byte-order mark). */
  warnings: string[];
  /** The parsed front matter, whenever `SKILL.md` has one that is a YAML mapping. */
  frontMatter?: Record<string, unknown>;
  /** The `SKILL.md` description when it satisfies its rule: what the discovery index lists. */
  description?: string;
}

/** A file as the check needs it: the API's decoded files pass as they are. */
export type SkillFile = Pick<FileBytes, 'filename' | 'bytes'>;

export const DESCRIPTION_MAX = 1024;
export const COMPATIBILITY_MAX = 500;

const SPEC_KEYS = ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'];

export const ALLOWED_TOOLS_LIST_WARNING =
  'allowed-tools is a YAML list: Claude Code reads it, but the Agent Skills specification asks for one line of tool names separated by spaces ' +
  '(e.g. "allowed-tools: Bash(git:*) Read"), and other clients may ignore a list';

// `ignoreBOM` keeps a byte-order mark in the text, so the author can be warned about it.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Checks a version's files. `slug` is the skill's slug, which `name` must equal; without it (a
 * client checking a folder before it knows the slug) `name` need only be a valid one.
 */
export function checkSkillConformance(files: readonly SkillFile[], slug?: string): SkillConformance {
  const skillFile = files.find((file) => file.filename === SKILL_FILE);
  if (!skillFile) return { issues: [missingSkillFile(files)], warnings: [] };

  let source: string;
  try {
    source = utf8.decode(skillFile.bytes);
  } catch {
    return { issues: [{ file: SKILL_FILE, message: `${SKILL_FILE} must be UTF-8 text` }], warnings: [] };
  }
  const { data, bom, problems } = readFrontMatter(source);
  // Lines are placed on request (placedIssues): the issues here read the same wherever they are shown.
  const issues: SkillIssue[] = problems.map(({ line: _line, ...problem }) => ({ file: SKILL_FILE, ...problem }));
  const warnings = bom
    ? [`${SKILL_FILE} starts with a byte-order mark; the reference validator (skills-ref) refuses it, so save the file as UTF-8 without one`]
    : [];
  if (!data) return { issues, warnings };

  const issue = (path: (string | number)[], message: string) => issues.push({ file: SKILL_FILE, path, message });
  for (const key of Object.keys(data)) if (!SPEC_KEYS.includes(key)) warnings.push(unknownKeyWarning(key));

  if (!Object.hasOwn(data, 'name')) issue(['name'], `the front matter has no name: add "name: ${slug ?? 'my-skill'}"`);
  else if (typeof data.name !== 'string') issue(['name'], `name must be text${slug ? ` ("${slug}", the skill's slug)` : ''}`);
  else if (!isValidSlug(data.name))
    issue(
      ['name'],
      `name "${clip(data.name)}" must be lower-case letters and digits joined by single hyphens, 1 to ${SLUG_MAX} characters${slug ? `: "${slug}", the skill's slug` : ''}`,
    );
  else if (slug !== undefined && data.name !== slug) issue(['name'], `name "${data.name}" must be the skill's slug, "${slug}"`);

  let description: string | undefined;
  if (!Object.hasOwn(data, 'description'))
    issue(['description'], 'the front matter has no description: add "description: what the skill does and when to use it"');
  else if (typeof data.description !== 'string')
    issue(['description'], 'description must be text (quote it if YAML reads it as a number, a date or true/false)');
  else if (data.description.trim() === '') issue(['description'], 'description must not be blank');
  else if (characters(data.description) > DESCRIPTION_MAX)
    issue(
      ['description'],
      `description is ${characters(data.description)} characters; at most ${DESCRIPTION_MAX} are allowed: keep what the skill does and when to use it, ` +
        `and move the rest into the body of ${SKILL_FILE}, which agents read once the skill is chosen`,
    );
  else description = data.description;

  if (Object.hasOwn(data, 'license') && typeof data.license !== 'string') issue(['license'], 'license must be text, such as "MIT" or "see LICENSE.txt"');
  if (Object.hasOwn(data, 'allowed-tools')) {
    const tools = data['allowed-tools'];
    // Claude Code reads a list too, and real skills use one: kept as written, with a word.
    if (Array.isArray(tools) && tools.every((tool) => typeof tool === 'string')) warnings.push(ALLOWED_TOOLS_LIST_WARNING);
    else if (typeof tools !== 'string')
      issue(['allowed-tools'], 'allowed-tools must be text (the tool names separated by spaces on one line) or a YAML list of tool names');
  }
  if (Object.hasOwn(data, 'compatibility')) {
    const value = data.compatibility;
    if (typeof value !== 'string') issue(['compatibility'], 'compatibility must be text');
    else if (characters(value) > COMPATIBILITY_MAX)
      issue(['compatibility'], `compatibility is ${characters(value)} characters; at most ${COMPATIBILITY_MAX} are allowed`);
  }
  if (Object.hasOwn(data, 'metadata')) {
    if (!isMapping(data.metadata)) issue(['metadata'], 'metadata must be a mapping of names to text, e.g. "metadata:" then "  author: example-org"');
    else {
      for (const [key, value] of Object.entries(data.metadata)) {
        if (typeof value !== 'string')
          issue(
            ['metadata', key],
            `metadata values must be text: quote it${typeof value === 'number' || typeof value === 'boolean' ? ` ("${String(value)}")` : ''}`,
          );
      }
    }
  }

  return { issues, warnings, frontMatter: data, ...(description === undefined ? {} : { description }) };
}

/**
 * The issues of {@link checkSkillConformance} with the line of `SKILL.md` each is on, for showing
 * them against the text (the web upload's preview): a key's problem on the key's line, a YAML
 * error on its own, and what is missing from the front matter on its opening line. Issues of the
 * files as a whole (no `SKILL.md`, not UTF-8) have none.
 */
export function placedIssues(files: readonly SkillFile[], issues: readonly SkillIssue[]): SkillIssue[] {
  const skillFile = files.find((file) => file.filename === SKILL_FILE);
  let source: string | undefined;
  try {
    source = skillFile && utf8.decode(skillFile.bytes);
  } catch {
    source = undefined;
  }
  if (source === undefined) return [...issues];
  const { problems, keyLines } = readFrontMatter(source);
  const problemLines = new Map(problems.map((problem) => [problem.message, problem.line]));
  return issues.map((issue) => {
    if (issue.file !== SKILL_FILE) return issue;
    const line = issue.path ? (keyLines?.get(keyPath(issue.path)) ?? 1) : problemLines.get(issue.message);
    return line === undefined ? issue : { ...issue, line };
  });
}

/** Why there is no root `SKILL.md`, naming the near miss when there is one. */
function missingSkillFile(files: readonly SkillFile[]): SkillIssue {
  const miscased = files.find((file) => file.filename.toLowerCase() === 'skill.md');
  if (miscased) {
    return {
      file: miscased.filename,
      message: `the file must be named exactly ${SKILL_FILE}, not "${miscased.filename}": clients on case-sensitive file systems look for ${SKILL_FILE} only`,
    };
  }
  const nested = files.find((file) => file.filename.toLowerCase().endsWith('/skill.md'));
  if (nested) return { file: nested.filename, message: `${SKILL_FILE} must be at the root of the skill, not at "${nested.filename}"` };
  if (files.length === 0)
    return { file: SKILL_FILE, message: `there are no files: a skill is a ${SKILL_FILE} at the root, with front matter giving its name and description` };
  return { file: SKILL_FILE, message: `there is no ${SKILL_FILE} at the root: every skill needs one, with front matter giving its name and description` };
}

function unknownKeyWarning(key: string): string {
  if (isSkillpressKey(key)) return topLevelKeyWarning(key);
  const near = SPEC_KEYS.find((known) => known === key.toLowerCase().replace(/_/g, '-'));
  const hint = near ? `; did you mean "${near}"?` : `; Agent Skills clients may ignore it (put your own keys under metadata)`;
  return `"${clip(key)}" is not an Agent Skills front-matter key${hint}`;
}

/** Characters as the specification counts them: Unicode code points, not UTF-16 units. */
const characters = (text: string) => [...text].length;

const clip = (text: string) => (text.length > 80 ? `${text.slice(0, 77)}…` : text);

/**
 * The description the discovery index lists for a version: its `SKILL.md` description, or
 * undefined when the files do not conform (such a version stays out of the index).
 */
export function discoveryDescription(files: readonly SkillFile[], slug: string): string | undefined {
  const conformance = checkSkillConformance(files, slug);
  return conformance.issues.length === 0 ? conformance.description : undefined;
}
