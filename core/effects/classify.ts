import type { EffectKind } from './effect.ts';
import { CODE_EXTENSIONS, type ConfigFormat, INTERPRETERS, type RowMatch, SENSITIVE_ROWS, type SensitiveRow } from './sensitive-classes.ts';

/**
 * The engine that reads the sensitive-classes table: which row a path, a config key, a command,
 * a variable or a host falls under. It knows the syntax of the patterns and nothing of what they
 * mean; what is sensitive, and why, is only in the table (`sensitive-classes.ts`).
 *
 * Paths are given as the table writes them: from the user's home (`~/…`), from the project
 * (`./…`), or absolute.
 */

type Compiled = { row: SensitiveRow } & (
  | { on: 'path'; pattern: RegExp; unless?: RegExp }
  | { on: 'key'; pattern: RegExp; format: ConfigFormat }
  | { on: 'command'; program: RegExp; words: RegExp[] }
  | { on: 'env'; name: string }
  | { on: 'host'; pattern: RegExp }
);

/** `{a,b}x` → `ax`, `bx`: alternatives in braces, as many groups as the pattern has (not nested). */
export function expandBraces(pattern: string): string[] {
  const open = pattern.indexOf('{');
  const close = open < 0 ? -1 : pattern.indexOf('}', open);
  if (close < 0) return [pattern];
  const head = pattern.slice(0, open);
  const tail = pattern.slice(close + 1);
  return pattern
    .slice(open + 1, close)
    .split(',')
    .flatMap((choice) => expandBraces(`${head}${choice}${tail}`));
}

const literal = (text: string) => text.replace(/[.+^$()|[\]\\?]/g, '\\$&');

/** A path glob as a pattern: `*` within one name, `**` across folders, and `**` then a slash at the start: anywhere. */
function pathSource(glob: string): string {
  return glob
    .split(/(\*\*\/|\/\*\*$|\*\*|\*)/)
    .map((part) => {
      if (part === '**/') return '(?:.*/)?';
      if (part === '/**') return '(?:/.*)?';
      if (part === '**') return '.*';
      if (part === '*') return '[^/]*';
      return literal(part);
    })
    .join('');
}

/** A word, key or host glob as a pattern: `*` is any characters. */
const wordSource = (glob: string) => glob.split('*').map(literal).join('.*');

function anyOf(glob: string, source: (g: string) => string, wrap: (s: string) => string, flags = ''): RegExp {
  return new RegExp(`^(?:${expandBraces(glob).map(source).map(wrap).join('|')})$`, flags);
}

function compile(row: SensitiveRow): Compiled {
  const m: RowMatch = row.match;
  if ('path' in m) {
    return { row, on: 'path', pattern: anyOf(m.path, pathSource, (s) => s), unless: m.unless ? anyOf(m.unless, pathSource, (s) => s) : undefined };
  }
  if ('key' in m) return { row, on: 'key', format: m.format, pattern: anyOf(m.key, wordSource, (s) => `${s}(?:\\..*)?`, 'i') };
  if ('command' in m) {
    const [program = '', ...words] = [...m.command.matchAll(/'([^']*)'|(\S+)/g)].map((w) => w[1] ?? w[2]!);
    return { row, on: 'command', program: anyOf(program, wordSource, (s) => s, 'i'), words: words.map((w) => anyOf(w, wordSource, (s) => s, 'is')) };
  }
  if ('env' in m) return { row, on: 'env', name: m.env };
  return {
    row,
    on: 'host',
    pattern: anyOf(
      m.host,
      (g) => wordSource(g).replace(/^\.\*\\\./, '(?:.*\\.)?'),
      (s) => s,
      'i',
    ),
  };
}

const COMPILED: readonly Compiled[] = SENSITIVE_ROWS.map(compile);

const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** The programs the table's command rows name, each spelled out (names with a wildcard left out). */
export function tablePrograms(): string[] {
  const names = COMPILED.filter((c) => c.on === 'command').flatMap((c) => {
    const m = c.row.match as { command: string };
    return expandBraces(m.command.split(/\s+/)[0]!);
  });
  return [...new Set(names.filter((n) => /^[\w.-]+$/.test(n)))].sort();
}

/** The row a path falls under for an effect (reads, writes or asks), if any. */
export function rowForPath(effect: EffectKind, path: string): SensitiveRow | undefined {
  return COMPILED.find((c) => c.on === 'path' && c.row.effect === effect && c.pattern.test(path) && !c.unless?.test(baseName(path)))?.row;
}

/** The row a config key written into a file of this format falls under, if any. */
export function rowForKey(format: ConfigFormat, key: string): SensitiveRow | undefined {
  return COMPILED.find((c) => c.on === 'key' && c.format === format && c.pattern.test(key))?.row;
}

/** Every row a command matches (the program, then its words in order), in table order: one command may read and write. */
export function rowsForCommand(argv: readonly string[]): SensitiveRow[] {
  const [first, ...args] = argv;
  if (first === undefined) return [];
  const program = baseName(first);
  return COMPILED.filter((c) => c.on === 'command' && c.program.test(program) && wordsInOrder(c.words, args)).map((c) => c.row);
}

function wordsInOrder(words: readonly RegExp[], args: readonly string[]): boolean {
  let at = 0;
  for (const word of words) {
    while (at < args.length && !word.test(args[at]!)) at++;
    if (at === args.length) return false;
    at++;
  }
  return true;
}

const PROGRAMS = COMPILED.flatMap((c) => (c.on === 'command' ? [c.program.source] : []));
const ANY_PROGRAM = new RegExp(PROGRAMS.join('|'), 'i');

/** Whether a word names a program some command row is about: a cheap test before `rowsForCommand`. */
export function isTableProgram(word: string): boolean {
  return ANY_PROGRAM.test(baseName(word));
}

/** A path's pieces may be joined by a separator or passed apart: `path.join(home, '.ssh', 'id_rsa')`, `Path.home() / ".aws" / "credentials"`. */
const MENTION_SEP = String.raw`(?:[/\\]|["']\s{0,4}[,/+]\s{0,4}[fr]?["'])`;
const MENTION_HOME = String.raw`(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\/root|\/home\/[\w.-]{1,32}|\/Users\/[\w.-]{1,32}|homedir\(\)|home\(\)|expanduser\(\s{0,4}["']~)`;
/** Folders that hold many things: naming one of them alone names no store. */
const SHARED_FOLDERS = new Set(['.config', '.local', 'Library', 'share', 'Application Support']);

/** One piece of a table path as text names it: `*` any part of the name (no dot, so `id_*` is not `id_rsa.pub`). */
const mentionPiece = (piece: string) => piece.split('*').map(literal).join('[\\w-]*');

/**
 * A pattern that finds, in text, a mention of a path of the rows chosen, however the path is
 * written (joined with separators or passed in pieces), and the words of which such a text holds
 * one. A file straight in the home (`~/.npmrc`) must be named from the home, as the same name in
 * a project is configuration; a deeper one is known by its folders; the folder of a row chosen by
 * `wholeFolders` (one that holds little but secrets), named alone (`tar czf k.tgz ~/.ssh`), names
 * it too.
 */
export function pathMentions(chosen: (row: SensitiveRow) => boolean, wholeFolders: (row: SensitiveRow) => boolean): { pattern: RegExp; words: string[] } {
  const sources: string[] = [];
  const words = new Set<string>();
  const folders = new Set<string>();
  for (const row of SENSITIVE_ROWS) {
    if (!chosen(row) || !('path' in row.match)) continue;
    const unless = row.match.unless?.replace(/^\*/, '');
    for (const path of expandBraces(row.match.path)) {
      const fromHome = path.startsWith('~/');
      const pieces = path
        .replace(/^(?:~\/|\/|\*\*\/)/, '')
        .split('/')
        .filter((p) => p !== '**');
      const body = pieces.map(mentionPiece).join(MENTION_SEP) + (unless ? `\\b(?!${mentionPiece(unless)})` : '');
      sources.push(fromHome && pieces.length === 1 ? `${MENTION_HOME}["'\\s,+]{0,6}${MENTION_SEP}?${body}\\b` : body);
      const literals = pieces.flatMap((p) => p.split('*')).filter((p) => p.length > 0);
      // The keyword: the first piece that is the store's own (not a shared folder, not too short to mean anything), else the longest.
      const own = literals.find((p) => !SHARED_FOLDERS.has(p) && p.length >= 4);
      words.add((own ?? literals.reduce((a, b) => (b.length > a.length ? b : a), '')).toLowerCase());
      const folder = pieces.slice(0, -1).findIndex((p) => !SHARED_FOLDERS.has(p) && !p.includes('*'));
      if (wholeFolders(row) && fromHome && pieces.length > 1 && folder >= 0)
        folders.add(
          pieces
            .slice(0, folder + 1)
            .map(mentionPiece)
            .join('[/\\\\]'),
        );
    }
  }
  if (folders.size > 0) sources.push(`(?:${MENTION_HOME}[/\\\\]|(?<![\\w.-]))(?:${[...folders].join('|')})[/\\\\]?(?=["'\\s)\x60]|$)`);
  return { pattern: new RegExp(`(?:${sources.join('|')})`, 'i'), words: [...words] };
}

/** The row of an environment variable that holds a secret, if it is one. */
export function rowForEnv(name: string): SensitiveRow | undefined {
  return COMPILED.find((c) => c.on === 'env' && c.name === name)?.row;
}

/** Every environment variable the table names as holding a secret (the sandbox plants one of each). */
export function secretEnvNames(): string[] {
  return COMPILED.flatMap((c) => (c.on === 'env' ? [c.name] : []));
}

/** Every row a host falls under: a package registry, or a service that hands out credentials. */
export function rowsForHost(host: string): SensitiveRow[] {
  return COMPILED.filter((c) => c.on === 'host' && c.pattern.test(host)).map((c) => c.row);
}

/** The format of a configuration file written at this path, when the table reads its keys. */
export function formatOfPath(path: string): ConfigFormat | undefined {
  const row = rowForPath('writes', path);
  return row && 'path' in row.match ? row.match.format : undefined;
}

/** Configuration in the user's home or the system is global; in the project, the project's. */
export function scopeOf(path: string): 'global' | 'project' {
  return path.startsWith('./') ? 'project' : 'global';
}

const INTERPRETER_PATTERNS = INTERPRETERS.map((i) => ({ ...i, pattern: anyOf(i.program, wordSource, (s) => s) }));

/** The interpreter a program is, with its inline-code flags, if it is one. */
export function interpreterOf(program: string): { inline: string[] } | undefined {
  const name = baseName(program);
  return INTERPRETER_PATTERNS.find((i) => i.pattern.test(name));
}

/** Whether a file is one an interpreter is expected to run, by its extension. */
export function looksLikeCode(path: string): boolean {
  const name = baseName(path);
  const dot = name.lastIndexOf('.');
  return CODE_EXTENSIONS.includes(dot <= 0 ? '' : name.slice(dot).toLowerCase());
}
