import { type CST, isMap, LineCounter, Parser, parseDocument, stringify } from 'yaml';
import { SKILL_FILE } from './filename.ts';

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
}

// The `skills` CLI takes only a bare `---` as the opening line; closing lines may trail spaces.
const OPENING = /^---$/;
const CLOSING = /^---[ \t]*$/;
const BOM = '\uFEFF';
/**
 * How deep lists and mappings may nest, counting the root mapping as 1. Real front matter needs
 * three or four levels; a limit keeps the answer to a deeply nested block the same however much
 * stack the process happens to have left.
 */
export const MAX_FRONT_MATTER_DEPTH = 32;
const TOO_DEEP = `the front matter nests lists and mappings more than ${MAX_FRONT_MATTER_DEPTH} levels deep`;

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
        { message: `${SKILL_FILE} must begin with YAML front matter: a first line "---", then keys such as "name: my-skill", then a closing "---" line` },
      ],
    };
  }
  const end = lines.findIndex((line, i) => i > 0 && CLOSING.test(line));
  if (end < 0) return { body: '', bom, problems: [{ message: `the front matter of ${SKILL_FILE} is not closed: add a "---" line after its last key` }] };
  const body = lines.slice(end + 1).join('\n');
  return { ...parseYamlMapping(lines.slice(1, end).join('\n'), 2), body, bom };
}

/** Parses the YAML between the delimiters; `firstLine` is its first line's number in the file. */
function parseYamlMapping(yaml: string, firstLine: number): Pick<FrontMatter, 'data' | 'problems'> {
  if (nestedDeeperThan(yaml, MAX_FRONT_MATTER_DEPTH)) return { problems: [{ message: TOO_DEEP }] };
  const lineCounter = new LineCounter();
  // `uniqueKeys` is the default; spelled out because a repeated key is refused by js-yaml (and
  // so by gray-matter clients) and an author should hear about it here first.
  const doc = parseDocument(yaml, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined) => (offset === undefined ? '' : ` (line ${lineCounter.linePos(offset).line + firstLine - 1})`);
  // Warnings too: an unknown tag such as `!foo` reads as plain text here but makes js-yaml throw,
  // and a client that throws drops the skill without a word.
  const problems: FrontMatterProblem[] = [...doc.errors, ...doc.warnings].map((e) => ({
    message: `invalid YAML in the front matter: ${e.message}${at(e.pos[0])}`,
  }));
  if (problems.length > 0) return { problems };
  if (doc.contents !== null && !isMap(doc.contents))
    return { problems: [{ message: 'the front matter must be a YAML mapping of keys to values, such as "name: my-skill"' }] };
  const keyProblems: FrontMatterProblem[] = [];
  try {
    // Maps as Map objects: the `yaml` package would otherwise stringify keys that are
    // collections itself, with a process warning; here they become a problem instead.
    const value = doc.toJS({ mapAsMap: true, maxAliasCount: 100 });
    const data = value === null ? {} : (plainObjects(value, [], keyProblems) as Record<string, unknown>);
    return { data, problems: keyProblems };
  } catch (error) {
    // An alias to a missing anchor, or too many aliases (a "billion laughs" document).
    return { problems: [{ message: `invalid YAML in the front matter: ${(error as Error).message}` }] };
  }
}

/**
 * Whether the YAML nests lists and mappings more than `limit` deep. Read from the `yaml`
 * package's syntax tree, whose parser keeps its own stack, and walked with a list rather than
 * by recursion: the composer that {@link parseDocument} runs recurses, and would run out of
 * stack on some documents and not others depending on how much of it is left.
 */
function nestedDeeperThan(yaml: string, limit: number): boolean {
  const pending: [CST.Token | null | undefined, number][] = [];
  for (const token of new Parser().parse(yaml)) pending.push([token, 0]);
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [token, depth] = next;
    if (token?.type === 'document') pending.push([token.value, depth]);
    if (token?.type !== 'block-map' && token?.type !== 'block-seq' && token?.type !== 'flow-collection') continue;
    if (depth + 1 > limit) return true;
    for (const item of token.items) pending.push(['key' in item ? item.key : undefined, depth + 1], [item.value, depth + 1]);
  }
  return false;
}

/**
 * Turns `Map`s into plain objects. A key that is not a scalar is a problem and is left out, and
 * so is a value that contains itself (`a: &x [*x]` is valid YAML, and would recurse forever) or
 * that aliases make deeper than {@link MAX_FRONT_MATTER_DEPTH}.
 */
function plainObjects(value: unknown, path: (string | number)[], problems: FrontMatterProblem[], ancestors = new Set<unknown>()): unknown {
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
  const inner = new Set(ancestors).add(value);
  if (Array.isArray(value)) return value.map((item, i) => plainObjects(item, [...path, i], problems, inner));
  const entries: [string, unknown][] = [];
  for (const [key, item] of value) {
    if (key !== null && typeof key === 'object') {
      problems.push({ ...at, message: 'a key must be plain text, not a list or a mapping' });
      continue;
    }
    const name = String(key ?? '');
    entries.push([name, plainObjects(item, [...path, name], problems, inner)]);
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
