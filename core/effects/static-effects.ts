import type { FileBytes } from '../bundle.ts';
import { readFileContent } from '../scan/read/file-content.ts';
import { codeLines, fileKindOf, matchingForm, splitLines } from '../scan/read/source-text.ts';
import {
  formatOfPath,
  interpreterOf,
  isTableProgram,
  rowForEnv,
  rowForKey,
  rowForPath,
  rowsForCommand,
  rowsForHost,
  scopeOf,
  secretEnvNames,
} from './classify.ts';
import type { Effects, StaticEvidence } from './effect.ts';
import { EffectList } from './effect-list.ts';
import type { ConfigFormat } from './sensitive-classes.ts';

/**
 * The effects read in a version's text (docs/scanning.md, "Behaviour"): what following or running
 * it would do outside its folder, each with the `file:line` it was read on and `source: "static"`.
 * What is sensitive is only the sensitive-classes table's to say (`sensitive-classes.ts`, through
 * `classify.ts`); this module finds, in the text, the paths, config keys, commands, variables and
 * hosts the table judges:
 * - paths written from the home (`~/`, `$HOME`, `os.homedir()`, `Path.home()`), absolute, or of
 *   the project (`.claude/settings.json`), their quoted pieces joined (`Path.home() / ".aws"`) and
 *   names bound to them substituted; a path on a line that writes (or whose name a later line
 *   writes) is a write, otherwise a read;
 * - config keys: `git config <key>`, `npm|pip config set <key>`, and the keys of the text written
 *   into a configuration file (a here-document, the strings of the writing line, a JSON object);
 * - commands: every simple command of a code line (and of a `requirements.txt` line, as pip reads
 *   it), by the table's command rows;
 * - environment variables the table names, hosts of URLs, downloads and decoded text piped into
 *   an interpreter, and prose that asks the user for a secret.
 * Prose is read only where it is addressed to the reader as commands (inline code spans), or asks
 * for a secret. The reading is an over-approximation by design: the sandbox observes what runs.
 */

/** Files larger than this are read up to it: effects are found early in real files. */
const READ_BYTES = 256 * 1024;

type Evidence = StaticEvidence;

/** The home folder as code names it: `~`, `$HOME`, `%USERPROFILE%`, `os.homedir()`, `Path.home()`, `expanduser('~')`. */
const HOME_FORMS =
  /(?:\$\{HOME\}|\$HOME\b|%USERPROFILE%|%HOMEPATH%|\$env:USERPROFILE|\/root(?=\/)|\/home\/[\w.-]{1,32}(?=\/)|\/Users\/[\w.-]{1,32}(?=\/)|(?:os\.)?homedir\(\)|Path\.home\(\)|os\.path\.expanduser\(\s{0,4}["']~["']\s{0,4}\)|(?:process\.env\.|os\.environ\[["']|ENV\[["'])HOME(?:["']\])?)/g;
/** Quoted pieces of one path joined by an operator or an argument list: `".aws" / "credentials"`, `'.ssh', 'id_rsa'`, `"a" + "/b"`. */
const JOINED_PIECES = /(["'])\s{0,4}\)?\s{0,4}(?:\/|,|\+)\s{0,4}[fr]?(["'])/g;
/** A home form followed by its first quoted piece: `~", ".aws` after joining is `~/.aws`. */
const HOME_THEN_PIECE = /~["']?\s{0,4}\)?\s{0,4}(?:\/|,|\+)\s{0,4}[fr]?["']\/?/g;
/** A path as the table writes them: from the home, absolute under the system's folders, or a project dotfile or memory file. */
const PATH_CANDIDATE =
  /~\/[^\s"'`;|&<>(){}$,]*|(?<![\w.~-])\/(?:etc|var|proc|lib|Library|usr\/lib)\/[^\s"'`;|&<>(){}$,]*|(?<![\w~/.-])(?:\.\/)?(?:\.(?:claude|cursor|vscode|github|git|husky|gemini|codex|mcp\.json|npmrc|yarnrc|envrc|env|gitlab-ci\.yml|circleci|cursorrules|windsurfrules)\b[^\s"'`;|&<>(){}$,]*|(?:CLAUDE|CLAUDE\.local|AGENTS|GEMINI)\.md|pip\.conf|Jenkinsfile|azure-pipelines\.yml)/g;
/** A line that writes: redirection, `tee`, `cp`/`mv`/`install` into a place, file-writing calls of the common languages. */
const WRITES =
  /(?:(?<![<>&0-9])>>?(?![>&=])|\btee\b|\b(?:cp|mv|install|ln|rsync|scp)\s|writeFile|appendFile|write_text|write_bytes|\.write\(|json\.dump\(|\bopen\([^\n]{0,200}["'][wax]b?\+?["']|\bFile\.(?:write|open\([^\n]{0,120}["'][wa])|Set-Content|Out-File|Add-Content|\bsed\s{1,4}-i\b|\bcopy(?:file)?\(|shutil\.(?:copy|move))/i;
const HEREDOC = /<<-?\s{0,4}(["']?)([A-Za-z_]\w{0,30})\1/;
const ASSIGNMENT = /^\s{0,40}(?:(?:const|let|var|export|local|readonly)\s{1,4})?(?:\$)?([A-Za-z_]\w{0,40})\s{0,4}:?=(?!=)\s{0,4}(.+)$/;
const URL =
  /\bhttps?:\/\/([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+|\[[0-9a-f:]+\]|(?:\d{1,3}\.){3}\d{1,3})(?::\d{1,5})?/gi;
/** Hosts that name no one: loopback, and the names reserved for documentation and tests. */
const NOBODY = /^(?:localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1\]|(?:.*\.)?example(?:\.(?:com|org|net))?|.*\.(?:example|invalid|test|localhost))$/i;
/** Programs and calls that fetch over the network, and what runs code it is given. */
const FETCHES = /\b(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|urlopen|requests\.get|fetch|Net::HTTP\.get|http\.get|https\.get|URI\.open)\b/i;
const RUNS_GIVEN_CODE = /\b(?:eval|exec|Function|iex|Invoke-Expression|instance_eval|class_eval)\s{0,4}\(|\biex\b|\bInvoke-Expression\b/;
/** Code a runtime loads from inside a string: `import('data:text/javascript;base64,…')`. */
const DATA_IMPORT = /\bimport\s{0,4}\(\s{0,4}[`"']data:[\w/+.-]{1,40}(?:;base64)?,/i;
/** A sentence asking the user for a secret: what an agent following it would do. */
const ASKS =
  /\b(?:ask|prompt|request|have)\b[^.\n]{0,40}?\b(?:the\s{1,4}user|them|you)\b[^.\n]{0,60}?\b(?:tokens?|passwords?|passphrases?|api\s{0,2}keys?|secret\s{1,4}keys?|secrets|credentials|private\s{1,4}keys?|seed\s{1,4}phrases?|recovery\s{1,4}phrases?)\b|\bpaste\s{1,4}(?:in\s{1,4})?(?:your|their)\b[^.\n]{0,40}?\b(?:tokens?|passwords?|api\s{0,2}keys?|secrets?|credentials|private\s{1,4}keys?|seed\s{1,4}phrases?)\b/i;
const SECRET_ENV = new RegExp(`\\b(?:${secretEnvNames().join('|')})\\b`);
/** What a line with an effect holds at least one of: lines without are not read further. */
const MAY_HAVE_EFFECTS =
  /[~/]|\$\{?HOME|USERPROFILE|homedir|home\(|\.(?:claude|cursor|vscode|github|git|husky|gemini|codex|mcp|npmrc|yarnrc|envrc|env)\b|\b(?:CLAUDE|AGENTS|GEMINI)\.md|pip\.conf|config|install|crontab|systemctl|launchctl|schtasks|reg\s|kubectl|gcloud|\baz\s|\baws\s|base64|xxd|openssl|uudecode|certutil|sudo|zenity|kdialog|osascript|secret-tool|security\s|_TOKEN|_KEY|DATABASE_URL|import\s{0,4}\(/;
/** Build files without an extension, read as code. */
const BUILD_FILES = /(?:^|\/)(?:Makefile|makefile|GNUmakefile|Dockerfile|Justfile|Rakefile|Procfile)$|\.mk$/;
/** Pip's requirement files: each option line is an argument of `pip install`. */
const REQUIREMENTS = /(?:^|\/)requirements[\w.-]{0,40}\.(?:txt|in)$/;

interface Line {
  number: number;
  text: string;
  /** Read as code (a script, a fenced block, a build file) rather than prose. */
  code: boolean;
}

/** The effects read in these files' text. */
export function staticEffects(files: ReadonlyArray<Pick<FileBytes, 'filename' | 'bytes'>>): Effects {
  const out = new EffectList('static');
  for (const file of [...files].sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0))) {
    const content = readFileContent(file.bytes.subarray(0, READ_BYTES));
    if (content.kind === 'binary') continue;
    readFile(file.filename, content.text, out);
  }
  return out.effects;
}

function readFile(filename: string, text: string, out: EffectList): void {
  const kind = BUILD_FILES.test(filename) ? 'code' : fileKindOf(filename, text);
  const physical = splitLines(text);
  const code = codeLines(physical, kind);
  readLines(
    filename,
    physical.map((raw, i) => ({ number: i + 1, text: matchingForm(raw), code: code[i]! })),
    out,
  );
}

/**
 * The effects of lines the scanner has already read (its flows: code lines and the commands of
 * prose, documentation left out), for the rules that judge them (`core/scan/analyse/effects.ts`).
 */
export function effectsOfLines(
  files: ReadonlyArray<{
    filename: string;
    lines: ReadonlyArray<{ line: number; text: string }>;
    /** Prose addressed to the agent that asks the user for a secret (`asksForSecret`). */
    asks?: ReadonlyArray<{ line: number; text: string }>;
  }>,
): Effects {
  const out = new EffectList('static');
  for (const file of files) {
    for (const l of file.asks ?? []) askEffect(l.text, { file: file.filename, line: l.line }, out);
    if (file.lines.some((l) => MAY_HAVE_EFFECTS.test(l.text))) {
      readLines(
        file.filename,
        file.lines.map((l) => ({ number: l.line, text: l.text, code: true })),
        out,
      );
    }
  }
  return out.effects;
}

function readLines(filename: string, lines: readonly Line[], out: EffectList): void {
  const at = (line: Line): Evidence => ({ file: filename, line: line.number });
  if (REQUIREMENTS.test(filename)) {
    for (const line of lines) if (/^\s{0,4}-/.test(line.text)) commandEffects(['pip', 'install', ...words(line.text)], line.text, at(line), out);
    return;
  }
  const names = makeVariables(lines, filename);
  const bound = new Map<string, string>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.code) {
      proseEffects(line, at(line), out);
      continue;
    }
    if (!MAY_HAVE_EFFECTS.test(line.text)) continue;
    const expanded = expand(line.text, names, bound);
    const assigned = ASSIGNMENT.exec(expanded);
    const paths = pathsIn(expanded);
    if (assigned && paths.length > 0) bound.set(assigned[1]!, paths[0]!);
    const writesLater = assigned && paths.length > 0 ? laterWrite(lines, i, assigned[1]!) : false;
    const written = HEREDOC.test(expanded) ? heredocBody(lines, i) : [expanded];
    const writes = WRITES.test(expanded) || writesLater;
    for (const path of paths) pathEffect(path, writes, written, lines, at(line), out, filename);
    for (const command of commandsOf(expanded)) commandEffects(command, expanded, at(line), out);
    otherEffects(expanded, at(line), out);
  }
}

/** Prose: its inline code spans are commands a reader runs; a sentence may ask for a secret. */
function proseEffects(line: Line, evidence: Evidence, out: EffectList): void {
  if (ASKS.test(line.text)) askEffect(line.text, evidence, out);
  if (!line.text.includes('`')) return;
  for (const m of line.text.matchAll(/`([^`\n]{4,400})`/g)) {
    const span = m[1]!;
    for (const path of pathsIn(span)) pathEffect(path, WRITES.test(span), [span], [], evidence, out, evidence.file);
    for (const command of commandsOf(span)) commandEffects(command, span, evidence, out);
    otherEffects(span, evidence, out);
  }
}

/** Whether a sentence asks the user for a secret: what an agent following it would do. */
export function asksForSecret(text: string): boolean {
  return ASKS.test(text);
}

function askEffect(text: string, evidence: Evidence, out: EffectList): void {
  out.add('asks', { class: 'secret-prompt', reason: 'asks the user for a secret', target: text.trim().slice(0, 120), evidence, source: 'static' });
}

/** A Makefile's variables (`NAME = value`), so `$(A)$(B)` reads as what make runs. */
function makeVariables(lines: readonly Line[], filename: string): Map<string, string> {
  const names = new Map<string, string>();
  if (!BUILD_FILES.test(filename)) return names;
  for (const line of lines) {
    const m = /^([A-Za-z_][\w-]{0,40})\s{0,4}[:?+]?=\s{0,4}(.*)$/.exec(line.text);
    if (m) names.set(m[1]!, m[2]!.trim());
  }
  return names;
}

/** The line with make's variables substituted, home forms written `~`, quoted pieces joined and bound names replaced by their paths. */
function expand(text: string, make: ReadonlyMap<string, string>, bound: ReadonlyMap<string, string>): string {
  let out = text;
  if (make.size > 0) {
    for (let round = 0; round < 4 && /\$[({]\w/.test(out); round++) out = out.replace(/\$[({]([\w-]{1,40})[)}]/g, (all, name: string) => make.get(name) ?? all);
  }
  if (bound.size > 0) {
    out = out.replace(/\b[A-Za-z_]\w{0,40}\b/g, (name) => {
      const path = bound.get(name);
      return path === undefined ? name : `"${path}"`;
    });
  }
  HOME_FORMS.lastIndex = 0;
  if (HOME_FORMS.test(out)) out = out.replace(HOME_FORMS, '~');
  if (out.includes('"') || out.includes("'")) out = out.replace(JOINED_PIECES, '/').replace(HOME_THEN_PIECE, '~/');
  return out;
}

/** The paths a line names, as the table writes them: `~/…`, absolute, or `./…`. */
function pathsIn(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(PATH_CANDIDATE)) {
    const raw = m[0].replace(/[.:]+$/, '').replace(/\/{2,}/g, '/');
    if (raw.startsWith('~/') || raw.startsWith('/')) found.push(raw);
    else found.push(raw.startsWith('./') ? raw : `./${raw}`);
  }
  return found;
}

/** Whether a name bound on line `index` is written to by a later line of the file. */
function laterWrite(lines: readonly Line[], index: number, name: string): boolean {
  const named = new RegExp(`\\b${name}\\b`);
  for (let j = index + 1; j < lines.length && j <= index + 40; j++) {
    const text = lines[j]!.text;
    if (named.test(text) && WRITES.test(text) && !ASSIGNMENT.exec(text)?.[1]?.startsWith(name)) return true;
  }
  return false;
}

/** The lines of a here-document that starts on line `index` (the line itself first). */
function heredocBody(lines: readonly Line[], index: number): string[] {
  const m = HEREDOC.exec(lines[index]!.text)!;
  const body = [lines[index]!.text];
  for (let j = index + 1; j < lines.length && j <= index + 200; j++) {
    if (lines[j]!.text.trim() === m[2]) break;
    body.push(lines[j]!.text);
  }
  return body;
}

function pathEffect(
  path: string,
  writes: boolean,
  written: readonly string[],
  lines: readonly Line[],
  evidence: Evidence,
  out: EffectList,
  filename: string,
): void {
  const writeRow = writes ? rowForPath('writes', path) : undefined;
  if (writeRow) {
    const format = formatOfPath(path);
    const keys = format ? keysWritten(format, written, lines, filename) : [];
    for (const { key, row } of keys) out.fromRow(row, `${path}: ${key}`, evidence, scopeOf(path));
    if (keys.length === 0) out.fromRow(writeRow, path, evidence, scopeOf(path));
    return;
  }
  const readRow = rowForPath('reads', path) ?? rowForPath('asks', path);
  if (readRow && !writes) out.fromRow(readRow, path, evidence);
}

/**
 * The keys of the text written into a configuration file, each with the row it falls under:
 * `key = value` under `[section]` headers (git, ini, npmrc), or the quoted keys of a JSON object
 * (an upper-case name under `env` read as `env.NAME`), from the writing line and what it writes,
 * or for JSON from the whole script that builds the object.
 */
function keysWritten(format: ConfigFormat, written: readonly string[], lines: readonly Line[], filename: string) {
  const keys = new Set<string>();
  if (format === 'json') {
    const text = (lines.length > 0 && filename ? lines.map((l) => l.text) : written).join('\n');
    const quoted = [...text.matchAll(/["']([A-Za-z_][\w.-]{0,60})["']\s{0,4}[:\],)]/g)].map((m) => m[1]!);
    const env = quoted.includes('env');
    for (const key of quoted) keys.add(env && /^[A-Z][A-Z0-9_]{2,}$/.test(key) ? `env.${key}` : key);
  } else {
    let section = '';
    for (const text of written.flatMap((w) => w.split(/\\n/))) {
      const header = /^\s{0,8}\[\s{0,4}([\w.-]{1,60})(?:\s{1,4}"([^"]{0,200})")?\s{0,4}\]/.exec(text);
      if (header) {
        section = header[2] ? `${header[1]}.${header[2]}` : header[1]!;
        continue;
      }
      for (const m of text.matchAll(/(?:^|[\s'"\\n])([@\w][\w.:/@-]{0,80})\s{0,4}=(?!=)/g)) keys.add(section ? `${section}.${m[1]}` : m[1]!);
    }
  }
  return [...keys].flatMap((key) => {
    const row = rowForKey(format, key);
    return row ? [{ key, row }] : [];
  });
}

/** Simple commands of a line: split at pipes, lists and substitutions, each from the first word the table knows as a program. */
function commandsOf(text: string): string[][] {
  const out: string[][] = [];
  for (const segment of text.split(/\|\||&&|[|;`]|\$\(/)) {
    const ws = words(segment);
    const start = ws.findIndex((w) => isTableProgram(w) || CONFIG_COMMANDS.some((c) => c.program.test(w)));
    if (start >= 0) out.push(ws.slice(start));
  }
  return out;
}

/** A segment's words, quotes removed, brackets and commas of an argument list dropped. */
function words(text: string): string[] {
  return [...text.matchAll(/(?:'[^']*'|"[^"]*"|[^\s'"()[\],{}])+/g)].map((m) => m[0].replace(/'([^']*)'|"([^"]*)"/g, '$1$2')).filter(Boolean);
}

const CONFIG_COMMANDS: ReadonlyArray<{ program: RegExp; format: ConfigFormat; keyAt: (argv: readonly string[]) => string | undefined }> = [
  { program: /^git$/, format: 'git-config', keyAt: (argv) => (argv[1] === 'config' ? argv.slice(2).find((w) => !w.startsWith('-')) : undefined) },
  { program: /^(?:npm|pnpm|yarn)$/, format: 'npmrc', keyAt: (argv) => (argv[1] === 'config' && argv[2] === 'set' ? argv[3]?.split('=')[0] : undefined) },
  { program: /^pip3?$/, format: 'ini', keyAt: (argv) => (argv[1] === 'config' && argv[2] === 'set' ? argv[3] : undefined) },
];

function commandEffects(argv: readonly string[], line: string, evidence: Evidence, out: EffectList): void {
  for (const row of rowsForCommand(argv)) out.fromRow(row, argv.join(' ').slice(0, 160), evidence);
  const program = argv[0]?.slice(argv[0].lastIndexOf('/') + 1) ?? '';
  for (const config of CONFIG_COMMANDS) {
    if (!config.program.test(program)) continue;
    const key = config.keyAt(argv);
    const row = key ? rowForKey(config.format, key) : undefined;
    if (!row || !key) continue;
    const global = /\s--(?:global|system)\b|\s-g\b|\bpip3?\s+config\s+set\s+global\./.test(line) || config.format !== 'git-config';
    out.fromRow(row, `${argv.slice(0, 2).join(' ')}: ${key}`, evidence, global ? 'global' : 'project');
  }
}

/** Hosts, secret variables, and content that runs once downloaded or decoded. */
function otherEffects(text: string, evidence: Evidence, out: EffectList): void {
  for (const m of text.matchAll(URL)) {
    const host = m[1]!.toLowerCase();
    if (NOBODY.test(host)) continue;
    const rows = rowsForHost(host);
    for (const row of rows.filter((r) => r.effect === 'reads')) out.fromRow(row, host, evidence);
    const registry = rows.some((r) => r.effect === 'network');
    out.add('network', {
      class: registry ? 'package-registry' : 'host',
      ...(registry ? { row: rows.find((r) => r.effect === 'network')!.id } : {}),
      reason: registry ? 'talks to a package manager’s own registry' : 'talks to a host on the network',
      target: host,
      host,
      protocol: m[0].toLowerCase().startsWith('https') ? 'tls' : 'http',
      evidence,
      source: 'static',
    });
  }
  if (SECRET_ENV.test(text)) {
    for (const m of text.matchAll(new RegExp(SECRET_ENV.source, 'g'))) {
      const row = rowForEnv(m[0]);
      if (row) out.fromRow(row, m[0], evidence);
    }
  }
  const segments = text.split(/\|(?!\|)/);
  const fetchedAt = segments.findIndex((s) => FETCHES.test(s));
  const decodedAt = segments.findIndex((s) => rowsForCommand(words(s)).some((r) => r.class === 'decoded-content'));
  const runsAfter = (from: number) => from >= 0 && segments.slice(from + 1).some((s) => interpreterOf(words(s)[0] ?? '') !== undefined);
  const target = text.trim().slice(0, 160);
  if (runsAfter(fetchedAt) || (FETCHES.test(text) && RUNS_GIVEN_CODE.test(text))) {
    out.add('executes', { class: 'downloaded-content', reason: 'runs what it downloads: code that is not in the skill', target, evidence, source: 'static' });
  }
  if (runsAfter(decodedAt) || DATA_IMPORT.test(text)) {
    out.add('executes', {
      class: 'decoded-content',
      reason: 'runs what a decoder produced: code nobody could read in the skill',
      target,
      evidence,
      source: 'static',
    });
  }
}
