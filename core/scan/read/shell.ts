import type { Node } from 'web-tree-sitter';
import { bashParser } from './grammar.ts';

/**
 * The shell reader: shell text through a real parser (tree-sitter's Bash grammar), and each
 * command back out as it would run. Quoting and escapes are undone (`"cu"rl`, `cu\rl`,
 * `$'\x63url'`, `/dev/tc""p`), variables assigned earlier are substituted (`a=cu; b=rl; $a$b`),
 * `${IFS}` is a space and `$@` nothing, here-documents are read as the text they write, and the
 * strings handed to `eval`, `sh -c` and `bash -c` are read again as shell. What comes out is
 * plain text that the rules read as they read any line.
 *
 * Budgets: a text is parsed only when it could run differently from how it reads
 * ({@link mayDisguise}); at most SHELL_BUDGET bytes of shell are parsed per version (what is
 * left is still read line by line); the parser gives up after PARSE_STEPS_PER_KIB progress
 * reports per KiB (error recovery on garbage is the parser's slow path; the count is
 * deterministic, unlike a clock); strings are read again as shell at most MAX_NESTING deep.
 */

export interface ShellLine {
  /** 1-based line of the source where the command starts. */
  line: number;
  /** The command as it would run, words resolved and joined by spaces, pipelines by `|`. */
  text: string;
}

/** Bytes of shell a version may have parsed in all. */
export const SHELL_BUDGET = 64 * 1024;
const MAX_NESTING = 3;
/** A variable's value is at most this long: a value built up in a loop must not grow without bound. */
const MAX_VALUE = 4096;
/**
 * Progress reports the parser may make per KiB of input before it is stopped. Shell parses in
 * about 4 per KiB; garbage that sends the parser into error recovery takes three times that.
 */
const PARSE_STEPS_PER_KIB = 8;

export interface ShellBudget {
  remaining: number;
}

export function newShellBudget(): ShellBudget {
  return { remaining: SHELL_BUDGET };
}

/**
 * Whether a shell text could run differently from how it reads: quotes or backslashes inside a
 * word (a quoted piece touching the rest of it on either side: `"cu"rl`, `cu"rl"`), ANSI-C
 * strings, `$IFS`, `$@` inside a word, a command named by a variable, a string run by `eval` or
 * `sh -c`, or a redirection whose target is a variable or that opens a descriptor both ways
 * (`>& $T`, `exec 5<>$T`). Text without any of these reads as it runs, and is not parsed.
 */
export function mayDisguise(text: string): boolean {
  return DISGUISE.test(text);
}
const DISGUISE =
  /\$'|\w(?:''|"")|\w(["'])[\w/.:-]{1,40}\1|(["'])[\w/.:-]{1,40}\2\w|<>|[<>]&\s{0,4}["']?\$|\bexec\s{1,4}\d{1,3}[<>]|[a-z]\\[a-z]|\$\{?IFS|\w\$[@*]|\$[@*]\w|(?:^|[;&|(`{]\s{0,4}|\bthen\s{1,4}|\bdo\s{1,4})["']?\$\{?[A-Za-z_]|\beval\b|\b(?:ba|z|da|k)?sh\s{1,4}-\w{0,3}c\b|(?:^|[;&|]\s{0,4})(?:source|\.)\s{1,4}\S/m;

/**
 * The commands of a shell text as they would run; nothing when the budget is spent or the text
 * reads as it runs. `include` gives the text of a file of the skill that the script sources
 * (`source ./endpoint.conf`), so that what it assigns is known: a payload split across files is
 * read whole.
 */
export function readShell(source: string, budget: ShellBudget, include: (path: string) => string | null = () => null): ShellLine[] {
  if (budget.remaining <= 0 || !mayDisguise(source)) return [];
  const text = source.length > budget.remaining ? source.slice(0, budget.remaining) : source;
  budget.remaining -= text.length;
  const out: ShellLine[] = [];
  const sourced = (path: string, vars: Map<string, string>, nesting: number) => {
    const included = include(path.replace(/^(?:\$\([^)]{0,80}\)|\$\{[^}]{0,80}\}|\.)\//, ''));
    if (included === null || budget.remaining <= 0 || nesting >= MAX_NESTING) return;
    const part = included.slice(0, budget.remaining);
    budget.remaining -= part.length;
    read(part, 0, nesting + 1, vars, [], sourced);
  };
  read(text, 0, 0, new Map(), out, sourced);
  return out;
}

type Sourced = (path: string, vars: Map<string, string>, nesting: number) => void;

function read(source: string, lineOffset: number, nesting: number, vars: Map<string, string>, out: ShellLine[], sourced: Sourced): void {
  let steps = 0;
  const limit = PARSE_STEPS_PER_KIB * Math.ceil(source.length / 1024) + 16;
  const tree = bashParser.parse(source, null, { progressCallback: () => ++steps > limit });
  if (!tree) {
    // Given up: the parser must forget the half-parsed text before the next one.
    bashParser.reset();
    return;
  }
  try {
    const emit = (line: number, text: string) => out.push({ line: lineOffset + line, text });
    const reparse = (text: string, line: number) => {
      if (nesting < MAX_NESTING && text.length <= MAX_VALUE) read(text, lineOffset + line - 1, nesting + 1, vars, out, sourced);
    };
    new Reader(vars, emit, reparse, (path) => sourced(path, vars, nesting)).statements(tree.rootNode);
  } finally {
    tree.delete();
  }
}

const SHELLS = /^(?:ba|da|z|k|a)?sh$/;
const COMMANDS = new Set(['variable_assignment', 'declaration_command', 'command', 'pipeline', 'list', 'redirected_statement', 'negated_command']);
const REDIRECTS = new Set(['file_redirect', 'herestring_redirect', 'heredoc_redirect']);

class Reader {
  /**
   * Node types by node id, read once per node: each `type` is a call into the parser's
   * WebAssembly, and the reader asks again of the nodes it walks twice (a command, then what is
   * nested in it). Ids are unique within the one tree a reader walks.
   */
  private readonly types = new Map<number, string>();

  constructor(
    private readonly vars: Map<string, string>,
    private readonly emit: (line: number, text: string) => void,
    private readonly reparse: (text: string, line: number) => void,
    private readonly source: (path: string) => void,
  ) {}

  private typeOf(node: Node): string {
    let type = this.types.get(node.id);
    if (type === undefined) {
      type = node.type;
      this.types.set(node.id, type);
    }
    return type;
  }

  statements(node: Node): void {
    for (const child of node.namedChildren) if (child) this.statement(child);
  }

  private statement(node: Node): void {
    const type = this.typeOf(node);
    if (type === 'comment') return;
    if (COMMANDS.has(type)) {
      const text = this.command(node);
      if (text.trim()) this.emit(node.startPosition.row + 1, text);
      this.nested(node);
      return;
    }
    // if/for/while/case/functions/subshells: the statements inside, conditions included.
    this.statements(node);
  }

  /** Statements inside substitutions, and here-documents, are emitted too, on their own lines. */
  private nested(node: Node): void {
    for (const child of node.namedChildren) {
      if (!child) continue;
      const type = this.typeOf(child);
      if (type === 'command_substitution' || type === 'process_substitution' || type === 'subshell' || type === 'compound_statement') this.statements(child);
      else if (type === 'heredoc_body') this.emit(child.startPosition.row + 1, this.word(child));
      else this.nested(child);
    }
  }

  /** A command, pipeline or list as one line of text. */
  private command(node: Node): string {
    switch (this.typeOf(node)) {
      case 'variable_assignment': {
        const name = node.childForFieldName('name')?.text ?? '';
        const value = node.childForFieldName('value');
        const resolved = value ? this.word(value) : '';
        if (name) this.vars.set(name, resolved.slice(0, MAX_VALUE));
        return `${name}=${resolved}`;
      }
      case 'declaration_command':
        return this.words(node).join(' ');
      case 'pipeline':
        return node.namedChildren.map((c) => (c ? this.command(c) : '')).join(' | ');
      case 'list':
        return node.children.map((c) => (c ? (c.isNamed ? this.command(c) : this.typeOf(c)) : '')).join(' ');
      case 'negated_command':
        return `! ${node.namedChildren.map((c) => (c ? this.command(c) : '')).join(' ')}`;
      case 'redirected_statement': {
        const body = node.childForFieldName('body');
        const redirects = node.namedChildren.filter((c): c is Node => c !== null && c.id !== body?.id);
        return [body ? this.command(body) : '', ...this.redirects(redirects)].filter(Boolean).join(' ');
      }
      case 'command': {
        const words = this.words(node);
        this.runStrings(node, words);
        return this.line(words);
      }
      case 'subshell':
      case 'compound_statement':
        return `( ${node.namedChildren.map((c) => (c ? this.command(c) : '')).join('; ')} )`;
      default:
        return this.word(node);
    }
  }

  private words(node: Node): string[] {
    const words: string[] = [];
    for (const child of node.namedChildren) {
      if (!child) continue;
      const type = this.typeOf(child);
      if (type === 'variable_assignment') words.push(this.command(child));
      else if (REDIRECTS.has(type)) words.push(this.redirect(child));
      else words.push(this.word(child));
    }
    return words;
  }

  /** The command as a line: a word that holds spaces or quotes is quoted again, as a person would write it. */
  private line(words: readonly string[]): string {
    return words.map((w, i) => (i > 0 && /[\s"'|&;<>]/.test(w) && !/^[<>]|^\d[<>]/.test(w) ? quoteWord(w) : w)).join(' ');
  }

  /** `eval "…"`, `sh -c '…'`: the string is shell, read again. */
  private runStrings(node: Node, words: readonly string[]): void {
    const name = words[0] ?? '';
    const base = name.slice(name.lastIndexOf('/') + 1);
    const line = node.startPosition.row + 1;
    if (base === 'eval') this.reparse(words.slice(1).join(' '), line);
    else if ((base === 'source' || base === '.') && words[1]) this.source(words[1]);
    else if (SHELLS.test(base)) {
      const c = words.findIndex((w, i) => i > 0 && /^-[a-z]{0,3}c$/.test(w));
      if (c > 0 && words[c + 1]) this.reparse(words[c + 1]!, line);
    }
  }

  /**
   * A statement's redirections as the shell performs them. File redirections are read from their
   * text rather than the grammar's pieces: the grammar splits a target assembled from variables
   * and quotes (`>& $D""p/$H/$P 0>&1`) at places the shell does not and knows no `<>`, so the
   * text of the touching redirections is read again here as words are: quotes removed,
   * variables put in, the pieces of a word joined.
   */
  private redirects(nodes: readonly Node[]): string[] {
    const out: string[] = [];
    let raw = '';
    let end = -1;
    const flush = () => {
      if (raw) out.push(expandWords(raw, (name) => this.valueOf(name)).join(' '));
      raw = '';
    };
    for (const node of nodes) {
      if (this.typeOf(node) !== 'file_redirect') {
        flush();
        out.push(this.redirect(node));
        continue;
      }
      raw += raw && node.startIndex > end ? ` ${node.text}` : node.text;
      end = node.endIndex;
    }
    flush();
    return out;
  }

  private redirect(node: Node): string {
    const parts: string[] = [];
    for (const child of node.children) {
      if (!child) continue;
      const type = this.typeOf(child);
      if (type === 'heredoc_body' || type === 'heredoc_end') continue;
      parts.push(child.isNamed && type !== 'file_descriptor' && type !== 'heredoc_start' ? this.word(child) : child.text);
    }
    return parts.join(' ');
  }

  /** A word as the shell hands it to the program. */
  private word(node: Node): string {
    const type = this.typeOf(node);
    switch (type) {
      case 'word':
        return unescapeWord(node.text);
      case 'raw_string':
        return node.text.slice(1, -1);
      case 'ansi_c_string':
        return ansiC(node.text.slice(2, -1));
      case 'heredoc_body':
        if (node.namedChildCount === 0) return node.text;
        return this.parts(node, true);
      case 'command_name':
      case 'string':
      case 'translated_string':
      case 'concatenation':
        return this.parts(node, type === 'concatenation');
      case 'simple_expansion':
      case 'expansion':
        return this.expansion(node);
      case 'command_substitution':
        return `$(${node.namedChildren.map((c) => (c ? this.command(c) : '')).join('; ')})`;
      case 'process_substitution':
        return `<(${node.namedChildren.map((c) => (c ? this.command(c) : '')).join('; ')})`;
      default:
        return node.text;
    }
  }

  /** The pieces of a string or a concatenation, joined; `keepTokens` keeps unnamed pieces (a bare `$` or quote-less text). */
  private parts(node: Node, keepTokens: boolean): string {
    let text = '';
    for (const child of node.children) {
      if (!child) continue;
      const type = this.typeOf(child);
      if (!child.isNamed) {
        if (keepTokens && type !== '"') text += child.text;
        continue;
      }
      text += type === 'string_content' || type === 'heredoc_content' ? unescapeDouble(child.text) : this.word(child);
    }
    return text;
  }

  private expansion(node: Node): string {
    const inner = node.text.startsWith('${') ? node.text.slice(2, -1) : node.text.slice(1);
    return this.valueOf(inner) ?? node.text;
  }

  /** What `$name` stands for: a value assigned earlier, a space for IFS, nothing for the special parameters; undefined when unknown. */
  private valueOf(name: string): string | undefined {
    if (name === 'IFS') return ' ';
    if (/^[@*#?$!-]$|^[0-9]$/.test(name)) return '';
    return this.vars.get(name);
  }
}

/**
 * Shell text read as the shell splits and expands it into words: unquoted blanks separate words,
 * quotes are removed (`'…'` as written, `"…"` with variables put in, `$'…'` with its escapes), a
 * backslash quotes the next character, `$name` and `${name}` take `value(name)` (or stay as
 * written when it is unknown), and the pieces of one word are joined.
 */
function expandWords(text: string, value: (name: string) => string | undefined): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  const variable = (at: number): { text: string; end: number } | undefined => {
    const found = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]{0,63}|[@*#?$!0-9-])\}|([A-Za-z_][A-Za-z0-9_]{0,63}|[@*#?$!0-9-]))/.exec(text.slice(at, at + 70));
    if (!found) return undefined;
    const name = found[1] ?? found[2]!;
    return { text: value(name) ?? found[0], end: at + found[0].length };
  };
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
      continue;
    }
    inWord = true;
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      const end = close < 0 ? text.length : close;
      word += text.slice(i + 1, end);
      i = end + 1;
    } else if (c === '$' && text[i + 1] === "'") {
      const close = text.indexOf("'", i + 2);
      const end = close < 0 ? text.length : close;
      word += ansiC(text.slice(i + 2, end));
      i = end + 1;
    } else if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') {
        const expanded = text[i] === '$' ? variable(i) : undefined;
        if (expanded) {
          word += expanded.text;
          i = expanded.end;
        } else if (text[i] === '\\' && i + 1 < text.length && '$`"\\'.includes(text[i + 1]!)) {
          word += text[i + 1];
          i += 2;
        } else word += text[i++];
      }
      i++;
    } else if (c === '\\') {
      word += text[i + 1] ?? '';
      i += 2;
    } else if (c === '$') {
      const expanded = variable(i);
      word += expanded ? expanded.text : c;
      i = expanded ? expanded.end : i + 1;
    } else {
      word += c;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}

function quoteWord(word: string): string {
  if (!word.includes("'")) return `'${word}'`;
  if (!word.includes('"')) return `"${word}"`;
  return `'${word.replace(/'/g, "'\\''")}'`;
}

/** A bare word: a backslash quotes the next character (`cu\rl` is `curl`). */
function unescapeWord(text: string): string {
  return text.includes('\\') ? text.replace(/\\(\n|.)/g, (_, c: string) => (c === '\n' ? '' : c)) : text;
}

/** Inside double quotes only `\$`, `` \` ``, `\"`, `\\` and a line break are escapes. */
function unescapeDouble(text: string): string {
  return text.includes('\\') ? text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c)) : text;
}

const C_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** `$'…'`: C escapes, hex, octal and Unicode. */
function ansiC(text: string): string {
  return text.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/g, (m, e: string) => {
    if (e[0] === 'x' || e[0] === 'u' || e[0] === 'U') {
      const cp = parseInt(e.slice(1), 16);
      return cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
    }
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8) & 0xff);
    if (e[0] === 'c') return String.fromCharCode(e.charCodeAt(1) & 0x1f);
    return C_ESCAPES[e] ?? m;
  });
}
