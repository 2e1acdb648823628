/**
 * The YAML front matter of a `SKILL.md` (the Agent Skills format: `name`, `description`, and
 * optional fields such as `license`, `metadata` or, for Skillpress, `category` and
 * `dependencies`). Only the subset of YAML that front matter uses is understood: `key: value`
 * scalars (plain, single- or double-quoted), `|` and `>` block scalars, nested mappings, `- item`
 * and `[a, b]` sequences, and comments. Anything else is an error with its line number rather
 * than a silent misreading. Pure: text in, data out.
 */

export type YamlValue = string | boolean | null | YamlValue[] | { [key: string]: YamlValue };

export interface FrontMatter {
  data: Record<string, YamlValue>;
  /** The Markdown after the closing `---`. */
  body: string;
}

export class FrontMatterError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(line === undefined ? message : `line ${line}: ${message}`);
    this.name = 'FrontMatterError';
  }
}

interface Line {
  number: number;
  indent: number;
  text: string;
}

export function parseFrontMatter(source: string): FrontMatter {
  const lines = source.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---') throw new FrontMatterError('SKILL.md must start with a --- front matter block');
  const end = lines.findIndex((line, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(line));
  if (end < 0) throw new FrontMatterError('the front matter block is not closed by a --- line');
  const raw = lines.slice(1, end).map((text, i) => ({ number: i + 2, indent: text.length - text.trimStart().length, text }));
  for (const line of raw) if (/^\s*\t/.test(line.text)) throw new FrontMatterError('tabs are not allowed for indentation', line.number);
  const content = raw.filter((line) => !isBlankOrComment(line.text));
  const [value] = content.length === 0 ? [{}] : parseBlock(raw, raw.indexOf(content[0]!), content[0]!.indent);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new FrontMatterError('the front matter must be a mapping of keys to values');
  return { data: value as Record<string, YamlValue>, body: lines.slice(end + 1).join('\n') };
}

const isBlankOrComment = (text: string) => /^\s*(#.*)?$/.test(text);

/** Parses the block (mapping or sequence) whose lines start at `start` with indent `indent`. */
function parseBlock(lines: Line[], start: number, indent: number): [YamlValue, number] {
  const first = lines[start]!;
  return /^-(\s|$)/.test(first.text.trimStart()) ? parseSequence(lines, start, indent) : parseMapping(lines, start, indent);
}

/** Index of the next line with content in a block indented by `indent`, or -1 where it ends. */
function nextLine(lines: Line[], from: number, indent: number): number {
  let i = from;
  while (i < lines.length && isBlankOrComment(lines[i]!.text)) i++;
  return i < lines.length && lines[i]!.indent >= indent ? i : -1;
}

function parseMapping(lines: Line[], start: number, indent: number): [YamlValue, number] {
  // No prototype: keys are the author's, and `__proto__` or `constructor` must be plain keys.
  const result: Record<string, YamlValue> = Object.create(null);
  let i = start;
  for (let at = nextLine(lines, i, indent); at >= 0; at = nextLine(lines, i, indent)) {
    const line = lines[at]!;
    if (line.indent > indent) throw new FrontMatterError('unexpected indentation', line.number);
    const match = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"][^:]*?)\s*:(?:\s+(.*))?$/.exec(line.text.trim());
    if (!match) throw new FrontMatterError(`expected "key: value", got "${line.text.trim().slice(0, 40)}"`, line.number);
    const key = unquoteKey(match[1]!, line.number);
    if (Object.hasOwn(result, key)) throw new FrontMatterError(`"${key}" is given twice`, line.number);
    [result[key], i] = parseValue(lines, at, indent, match[2] ?? '');
  }
  return [result, i];
}

function parseSequence(lines: Line[], start: number, indent: number): [YamlValue, number] {
  const result: YamlValue[] = [];
  let i = start;
  for (let at = nextLine(lines, i, indent); at >= 0; at = nextLine(lines, i, indent)) {
    const line = lines[at]!;
    const match = /^-(?:\s+(.*))?$/.exec(line.text.trim());
    // A list at its key's indent ends at the next key; the enclosing mapping reads that line.
    if (line.indent === indent && !match) break;
    if (line.indent > indent || !match) throw new FrontMatterError('expected "- item" in this list', line.number);
    const inline = match[1] ?? '';
    if (/^[^\s#'"[{][^:]*:(\s|$)/.test(inline)) throw new FrontMatterError('mappings inside lists are not supported in front matter', line.number);
    let value: YamlValue;
    [value, i] = parseValue(lines, at, indent, inline);
    result.push(value);
  }
  return [result, i];
}

/** The value after `key:` or `-` on line `i`; may consume the following, deeper lines. */
function parseValue(lines: Line[], i: number, indent: number, inline: string): [YamlValue, number] {
  const line = lines[i]!;
  const text = stripComment(inline);
  const block = /^([|>])([+-]?)$/.exec(text);
  if (block) return parseBlockScalar(lines, i + 1, indent, block[1] as '|' | '>', block[2] as '' | '+' | '-');
  if (text !== '') return [parseScalar(text, line.number), i + 1];
  let next = i + 1;
  while (next < lines.length && isBlankOrComment(lines[next]!.text)) next++;
  const child = lines[next];
  // A list may sit at the same indent as its key ("key:\n- a"), as YAML allows.
  const sameIndentList = child && child.indent === indent && /^-(\s|$)/.test(child.text.trimStart());
  if (!child || (child.indent <= indent && !sameIndentList)) return [null, i + 1];
  return parseBlock(lines, next, child.indent);
}

function parseBlockScalar(lines: Line[], start: number, parentIndent: number, style: '|' | '>', chomp: '' | '+' | '-'): [YamlValue, number] {
  const collected: string[] = [];
  let indent = -1;
  let i = start;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.text.trim() === '') {
      collected.push('');
      continue;
    }
    if (line.indent <= parentIndent) break;
    if (indent < 0) indent = line.indent;
    if (line.indent < indent) throw new FrontMatterError('block text is less indented than its first line', line.number);
    collected.push(line.text.slice(indent));
  }
  let trailing = 0;
  while (collected.length > 0 && collected[collected.length - 1] === '') {
    collected.pop();
    trailing++;
  }
  const text = style === '|' ? collected.join('\n') : fold(collected);
  if (collected.length === 0) return ['', i];
  if (chomp === '-') return [text, i];
  return [`${text}\n${chomp === '+' ? '\n'.repeat(trailing) : ''}`, i];
}

/** Folded style: single line breaks become spaces, blank lines stay as line breaks. */
function fold(lines: string[]): string {
  let out = '';
  for (const [index, line] of lines.entries()) {
    if (index === 0) out = line;
    else if (line === '') out += '\n';
    else out += out.endsWith('\n') || lines[index - 1] === '' ? line : ` ${line}`;
  }
  return out;
}

function stripComment(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith('"') || trimmed.startsWith("'")) return trimmed;
  return trimmed.replace(/(^|\s)#.*$/, '').trim();
}

function parseScalar(text: string, line: number): YamlValue {
  if (text.startsWith('"')) return parseDoubleQuoted(text, line);
  if (text.startsWith("'")) {
    const match = /^'((?:[^']|'')*)'\s*(#.*)?$/.exec(text);
    if (!match) throw new FrontMatterError('unterminated single-quoted string', line);
    return match[1]!.replace(/''/g, "'");
  }
  if (text.startsWith('[')) return parseFlowSequence(text, line);
  if (text === '{}') return {};
  if (text.startsWith('{') || text.startsWith('&') || text.startsWith('*') || text.startsWith('!')) {
    throw new FrontMatterError(`"${text.slice(0, 20)}" uses YAML that front matter here does not support`, line);
  }
  if (/^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
  if (/^(null|~)$/i.test(text)) return null;
  return text;
}

function parseDoubleQuoted(text: string, line: number): string {
  const match = /^("(?:[^"\\]|\\.)*")\s*(#.*)?$/.exec(text);
  if (!match) throw new FrontMatterError('unterminated double-quoted string', line);
  try {
    // YAML's double-quoted escapes are a superset of JSON's; the common ones coincide.
    return JSON.parse(match[1]!.replace(/\\'/g, "'").replace(/\\\//g, '/')) as string;
  } catch {
    throw new FrontMatterError('unsupported escape in a double-quoted string', line);
  }
}

function parseFlowSequence(text: string, line: number): YamlValue[] {
  const match = /^\[(.*)\]\s*(#.*)?$/.exec(text);
  if (!match) throw new FrontMatterError('unterminated [ ] list', line);
  const inner = match[1]!.trim();
  if (inner === '') return [];
  const items = [...inner.matchAll(/\s*("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^,]+)\s*(?:,|$)/g)].map((m) => m[1]!.trim());
  return items.map((item) => parseScalar(item, line));
}

function unquoteKey(key: string, line: number): string {
  if (key.startsWith('"')) return parseDoubleQuoted(key, line);
  if (key.startsWith("'")) return key.slice(1, -1).replace(/''/g, "'");
  return key;
}
