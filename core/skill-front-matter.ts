import { type CST, isMap, isScalar, LineCounter, Parser, parseDocument, stringify } from 'yaml';
import { SKILL_FILE } from './filename.ts';
import { utf8Length } from './text.ts';

/**
 * The YAML front matter at the top of a `SKILL.md`: finding it, parsing it with the `yaml`
 * package, and writing it back. Pure: text in, data out; problems are returned, never thrown, so
 * a validator can list every one of them.
 */

/** One thing wrong with a skill's files: which file, where in its front matter, and what. */
export interface SkillIssue {
  file: string;
  /** Keys from the front matter's root to the value at fault, e.g. `['metadata', 'author']`. */
  path?: (string | number)[];
  /**
   * The 1-based line of the file the problem is on, when it has one (placedIssues in
   * skill-conformance.ts): the key at `path`, the YAML error's position, or line 1 (the front
   * matter's opening) for what is missing from it.
   */
  line?: number;
  message: string;
}

export type FrontMatterProblem = Omit<SkillIssue, 'file'>;

export interface FrontMatter {
  /** The keys and values, or undefined when the front matter is not a readable YAML mapping. */
  data?: Record<string, unknown>;
  /** The Markdown after the closing `---` line. */
  body: string;
  /** Whether the text started with a UTF-8 byte-order mark (which was skipped). */
  bom: boolean;
  problems: FrontMatterProblem[];
  /**
   * The line of each key of the root mapping and of the mappings directly under it, by
   * {@link keyPath} of its path (`["metadata", "author"]`): where a problem with its value is.
   */
  keyLines?: ReadonlyMap<string, number>;
}

/** The key of a front-matter path in {@link FrontMatter.keyLines}. */
export const keyPath = (path: readonly (string | number)[]): string => JSON.stringify(path);

// The `skills` CLI takes only a bare `---` as the opening line; closing lines may trail spaces.
const OPENING = /^---$/;
const CLOSING = /^---[ \t]*$/;
const BOM = '\uFEFF';
/**
 * What the front matter of a `SKILL.md` may hold, checked before the YAML is parsed: the `yaml`
 * package's composer costs time that grows faster than the text (checking keys for repeats is
 * quadratic: 10,000 keys in 89 KB took seconds), and the same parse runs at publish, in the
 * rebuild, in the site build and in the browser. Real front matter is a few hundred bytes and a
 * handful of keys; these bounds are ten to a hundred times that.
 *
 * - `bytes`: the UTF-8 bytes between the `---` lines.
 * - `entries`: keys and list items at every depth, counting what aliases repeat.
 * - `depth`: how deep lists and mappings nest, the root mapping being 1; a limit also keeps the
 *   answer to a deeply nested block the same however much stack the process has left.
 * - `aliases`: `*name` references to anchors.
 */
export const FRONT_MATTER_LIMITS = { bytes: 16_384, entries: 512, depth: 32, aliases: 32 } as const;
export const MAX_FRONT_MATTER_DEPTH = FRONT_MATTER_LIMITS.depth;
const TOO_DEEP = `the front matter nests lists and mappings more than ${MAX_FRONT_MATTER_DEPTH} levels deep`;
const TOO_MANY_ENTRIES = `the front matter has more than ${FRONT_MATTER_LIMITS.entries} keys and list items`;
const TOO_MANY_ALIASES = `the front matter uses more than ${FRONT_MATTER_LIMITS.aliases} aliases (*name)`;
/** YAML errors listed one by one; the rest are counted. */
const YAML_ERRORS_SHOWN = 20;
const REPEATED_PAST_LIMIT = `aliases repeat the front matter past ${FRONT_MATTER_LIMITS.entries} keys and list items`;

/**
 * Reads the front matter of a `SKILL.md`. The first line must be exactly `---` and the block ends
 * at the next line that is `---`, as the `skills` CLI reads it (it ignores a `...` end marker, and
 * so do we). A byte-order mark is skipped and CRLF or CR line breaks read as LF, as Python's universal
 * newlines make the reference validator read them. An empty block is an empty mapping, so its
 * reader is told which keys are missing rather than only that something is.
 */
export function readFrontMatter(source: string): FrontMatter {
  const bom = source.startsWith(BOM);
  const lines = (bom ? source.slice(1) : source).replace(/\r\n?/g, '\n').split('\n');
  if (!OPENING.test(lines[0] ?? '')) {
    return {
      body: lines.join('\n'),
      bom,
      problems: [
        {
          line: 1,
          message: `${SKILL_FILE} must begin with YAML front matter: a first line "---", then keys such as "name: my-skill", then a closing "---" line`,
        },
      ],
    };
  }
  const end = lines.findIndex((line, i) => i > 0 && CLOSING.test(line));
  if (end < 0)
    return { body: '', bom, problems: [{ line: 1, message: `the front matter of ${SKILL_FILE} is not closed: add a "---" line after its last key` }] };
  const body = lines.slice(end + 1).join('\n');
  return { ...parseYamlMapping(lines.slice(1, end).join('\n'), 2), body, bom };
}

/**
 * Parses the YAML between the delimiters, once it is within {@link FRONT_MATTER_LIMITS};
 * `firstLine` is its first line's number in the file.
 */
function parseYamlMapping(yaml: string, firstLine: number): Pick<FrontMatter, 'data' | 'problems' | 'keyLines'> {
  const size = utf8Length(yaml);
  if (size > FRONT_MATTER_LIMITS.bytes)
    return {
      problems: [
        { message: `the front matter is ${size} bytes; at most ${FRONT_MATTER_LIMITS.bytes} are allowed (keep long text in the body of ${SKILL_FILE})` },
      ],
    };
  const overLimit = shapeProblem(yaml);
  if (overLimit) return { problems: [{ message: overLimit }] };
  const lineCounter = new LineCounter();
  // `uniqueKeys` is the default; spelled out because a repeated key is refused by js-yaml (and
  // so by gray-matter clients) and an author should hear about it here first.
  const doc = parseDocument(yaml, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const lineAt = (offset: number) => lineCounter.linePos(offset).line + firstLine - 1;
  const at = (offset: number | undefined) => (offset === undefined ? '' : ` (line ${lineAt(offset)})`);
  // Warnings too: an unknown tag such as `!foo` reads as plain text here but makes js-yaml throw,
  // and a client that throws drops the skill without a word.
  const errors = [...doc.errors, ...doc.warnings];
  // Every problem, up to a few: a broken block can hold thousands of errors of one mistake.
  const problems: FrontMatterProblem[] = errors.slice(0, YAML_ERRORS_SHOWN).map((e) => ({
    line: lineAt(e.pos[0]),
    message: `invalid YAML in the front matter: ${e.message}${at(e.pos[0])}`,
  }));
  if (errors.length > YAML_ERRORS_SHOWN) problems.push({ message: `and ${errors.length - YAML_ERRORS_SHOWN} more YAML errors in the front matter` });
  if (problems.length > 0) return { problems };
  if (doc.contents !== null && !isMap(doc.contents))
    return { problems: [{ message: 'the front matter must be a YAML mapping of keys to values, such as "name: my-skill"' }] };
  const keyProblems: FrontMatterProblem[] = [];
  try {
    // Maps as Map objects: the `yaml` package would otherwise stringify keys that are
    // collections itself, with a process warning; here they become a problem instead.
    const value = doc.toJS({ mapAsMap: true, maxAliasCount: 100 });
    const data = value === null ? {} : (plainObjects(value, [], keyProblems) as Record<string, unknown>);
    const keyLines = new Map<string, number>();
    const keysOf = (node: unknown, path: string[]) => {
      if (!isMap(node)) return;
      for (const pair of node.items) {
        if (!isScalar(pair.key) || !pair.key.range) continue;
        const key = [...path, String(pair.key.value ?? '')];
        keyLines.set(keyPath(key), lineAt(pair.key.range[0]));
        if (path.length === 0) keysOf(pair.value, key);
      }
    };
    keysOf(doc.contents, []);
    return { data, problems: keyProblems, keyLines };
  } catch (error) {
    // An alias to a missing anchor, or too many aliases (a "billion laughs" document).
    return { problems: [{ message: `invalid YAML in the front matter: ${(error as Error).message}` }] };
  }
}

/**
 * Which of the limits on depth, entries and aliases the YAML breaks, if any. Read from the
 * `yaml` package's syntax tree, whose parser is linear and keeps its own stack, and walked with a
 * list rather than by recursion: the composer that {@link parseDocument} runs recurses, and
 * would run out of stack on some documents and not others depending on how much of it is left.
 */
function shapeProblem(yaml: string): string | undefined {
  const pending: [CST.Token | null | undefined, number][] = [];
  for (const token of new Parser().parse(yaml)) pending.push([token, 0]);
  let entries = 0;
  let aliases = 0;
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [token, depth] = next;
    if (token?.type === 'document') pending.push([token.value, depth]);
    if (token?.type === 'alias' && ++aliases > FRONT_MATTER_LIMITS.aliases) return TOO_MANY_ALIASES;
    if (token?.type !== 'block-map' && token?.type !== 'block-seq' && token?.type !== 'flow-collection') continue;
    if (depth + 1 > MAX_FRONT_MATTER_DEPTH) return TOO_DEEP;
    entries += token.items.length;
    if (entries > FRONT_MATTER_LIMITS.entries) return TOO_MANY_ENTRIES;
    for (const item of token.items) pending.push(['key' in item ? item.key : undefined, depth + 1], [item.value, depth + 1]);
  }
  return undefined;
}

/**
 * Turns `Map`s into plain objects. A key that is not a scalar is a problem and is left out, and
 * so is a value that contains itself (`a: &x [*x]` is valid YAML, and would recurse forever),
 * that aliases make deeper than {@link MAX_FRONT_MATTER_DEPTH}, or that aliases repeat past the
 * limit of entries (`budget` counts what is left, for the whole front matter).
 */
function plainObjects(
  value: unknown,
  path: (string | number)[],
  problems: FrontMatterProblem[],
  budget = { entries: FRONT_MATTER_LIMITS.entries },
  ancestors = new Set<unknown>(),
): unknown {
  if (!Array.isArray(value) && !(value instanceof Map)) return value;
  const at = path.length > 0 ? { path } : {};
  if (ancestors.has(value)) {
    problems.push({ ...at, message: 'a value must not contain itself through an alias' });
    return undefined;
  }
  if (path.length >= MAX_FRONT_MATTER_DEPTH) {
    problems.push({ ...at, message: TOO_DEEP });
    return undefined;
  }
  if (budget.entries < 0) return undefined;
  budget.entries -= Array.isArray(value) ? value.length : value.size;
  if (budget.entries < 0) {
    problems.push({ ...at, message: REPEATED_PAST_LIMIT });
    return undefined;
  }
  const inner = new Set(ancestors).add(value);
  if (Array.isArray(value)) return value.map((item, i) => plainObjects(item, [...path, i], problems, budget, inner));
  const entries: [string, unknown][] = [];
  for (const [key, item] of value) {
    if (key !== null && typeof key === 'object') {
      problems.push({ ...at, message: 'a key must be plain text, not a list or a mapping' });
      continue;
    }
    const name = String(key ?? '');
    entries.push([name, plainObjects(item, [...path, name], problems, budget, inner)]);
  }
  return Object.fromEntries(entries);
}

/**
 * True for a YAML mapping as {@link readFrontMatter} returns it (a plain object), and false for
 * lists and for the other objects YAML tags can make (`!!binary` bytes, `!!set`).
 */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * Writes `---`, the mapping as YAML, `---`, then the body. Every string is kept on one line
 * (quoted and escaped when it must be) rather than in a `|` or `>` block: some skills clients read
 * front matter line by line and would take the block indicator itself for the value. A quoted one
 * is escaped as JSON escapes it: the yaml package's own double-quoted style folds a string with
 * line breaks over several lines, and wrote the space of a blank line among them as `\\`.
 */
export function writeFrontMatter(data: Record<string, unknown>, body: string): string {
  return `---\n${stringify(data, { lineWidth: 0, blockQuote: false, doubleQuotedAsJSON: true })}---\n${body}`;
}

/** A skill's display name from its `SKILL.md` body: the first level-one heading, as the registry's own SKILL.md writes the name. */
export function headingName(body: string): string | undefined {
  const heading = /^# +(.+?)\s*#*\s*$/m.exec(body)?.[1]?.trim();
  return heading && heading.length <= 100 ? heading : undefined;
}
