import type { FileBytes } from '../bundle.ts';
import { type Audience, audienceOf, evidenceOf, INSTRUCTIONS, lowerable, type Role, rolesOf } from './analyse/audience.ts';
import type { FlowFile, FlowLine } from './analyse/flows.ts';
import { KeywordIndex } from './analyse/keyword-index.ts';
import type { DerivedRule, FileScan, Hit, LineFile, LineRule, RawFinding, Rule, SkillRule } from './analyse/rule.ts';
import { rules } from './analyse/rules.ts';
import { asksForSecret } from '../effects/static-effects.ts';
import { explain } from './explain/explain.ts';
import { type Finding, type ScanResult, severityRank } from './finding.ts';
import { loweredBecause, verdictOf, weighed } from './judge/verdict.ts';
import { type Budget, type Decoded, decodeLine, decodeWrappedBase64, newBudget } from './normalise/decode.ts';
import { invisibleMarks, smuggledText } from './normalise/invisible.ts';
import { readFileContent } from './read/file-content.ts';
import { hiddenBlocks } from './read/hidden-blocks.ts';
import { foldStrings, scriptLanguage } from './read/script-strings.ts';
import { newShellBudget, readShell, type ShellBudget } from './read/shell.ts';
import {
  codeLines,
  fencedBlocks,
  fileKindOf,
  type FileKind,
  type LineContext,
  lineNumbered,
  lineStarts,
  logicalLines,
  matchingForm,
  splitLines,
} from './read/source-text.ts';
import { rulesVersion } from './rules-version.ts';

/**
 * The scanner: a version's files in, a verdict and findings out, as a pipeline of named stages
 * (docs/scanning.md walks a sample through them):
 *
 * 1. read (`read/`): bytes to text or binary, lines marked as prose or code, and one reader per
 *    language: shell through a real parser, Python, JavaScript and PowerShell through a
 *    tokenizer that folds strings;
 * 2. normalise and decode (`normalise/`): invisible characters, NFKC and confusable letters,
 *    encoded layers decoded and read again as if they were files;
 * 3. analyse (`analyse/`): the rule table over every reading, flows across the skill, who is
 *    being told (instructions or documentation), tampering;
 * 4. judge (`judge/`): what each finding weighs and the verdict they add up to;
 * 5. explain (`explain/`): each finding's message, with its chain, excerpts safe to show.
 *
 * Pure and deterministic: the same files give the same findings in the same order, whatever
 * order they came in. Every stage has a budget stated where it is enforced, so the cost stays
 * linear in the size of the version.
 */

/** A version's file as publishing holds it (a `FileBytes` will do), and whether it is executable. */
export type ScanFile = Pick<FileBytes, 'filename' | 'bytes'> & {
  /** The file is marked executable (mode 0755); a binary so marked is a program. */
  executable?: boolean;
};

export interface ScanOptions {
  /**
   * Quote short excerpts of the content in messages (default true). Pass false for paid skills:
   * their findings are public, their content is not.
   */
  quote?: boolean;
}

/** Decoding goes this many levels deep: base64 of gzip of hex of a command is read, a fourth layer is not. */
const MAX_DEPTH = 3;
/** A file reports a rule at most this many times; past it the rule has made its point. */
const MAX_PER_RULE_AND_FILE = 20;
/**
 * A line rule stops being tried in a text after this many hits: well past what a file reports
 * (MAX_PER_RULE_AND_FILE), so the rules that combine findings (a read near a send) still see
 * enough of them.
 */
const MAX_HITS_PER_RULE = 200;
/** At most this many findings are listed (the worst first); the verdict counts them all. */
export const MAX_FINDINGS = 200;

const lineRules = rules.filter((r): r is LineRule => r.scope === 'line');
const decodedRules = rules.filter((r) => r.scope === 'decoded');
const fileRules = rules.filter((r) => r.scope === 'file');
const binaryRules = rules.filter((r) => r.scope === 'binary');
const skillRules = rules.filter((r): r is SkillRule => r.scope === 'skill');
const derivedRules = rules.filter((r): r is DerivedRule => r.scope === 'derived');
const ruleOrder = new Map(rules.map((r, i) => [r.id, i]));
const RULES = lineRules.length;

/** Which line rules a line could match, by their keywords; rules without keywords always could, those about invisible characters on lines that have one. */
const keywordIndex = new KeywordIndex(lineRules.map((r) => r.keywords ?? []));
const keywordless = lineRules.flatMap((r, i) => (r.keywords === undefined && !r.invisible ? [i] : []));
/** The rules about invisible characters, tried only on the lines that have one. */
const aboutInvisible = lineRules.flatMap((r, i) => (r.invisible ? [i] : []));
/** A line of nothing but white space and invisible characters could match only these. */
const onBlankLines = [...keywordless, ...aboutInvisible];

/** Marks, from `offset` in `found`, the line rules `line` could match. */
function candidates(line: LineContext, found: Uint8Array, offset: number): void {
  keywordIndex.scan(line.text, found, offset);
  for (const i of keywordless) found[offset + i] = 1;
  if (line.invisible) for (const i of aboutInvisible) found[offset + i] = 1;
}

/** Rules whose phrases prose wraps over lines; commands and characters are matched per line. */
const WRAPPING = new Set<string>(['prompt-injection', 'social-engineering', 'credential-access']);
/** A line with something other than white space (what `trim()` keeps, without making the string). */
const NOT_BLANK = /\S/;
/** The line rules (their indices) read again across a line break: phrases, with keywords. */
const wrapping = lineRules.flatMap((r, i) => (r.keywords && WRAPPING.has(r.category) ? [i] : []));
/**
 * Their keywords that a line break can split. A keyword found in either line is among that line's
 * candidates already; one that spans the break holds the space that joins the lines, so only
 * keywords with a space need looking for across it, and only as far on each side as they reach.
 */
const spanningKeywords = wrapping.map((r) => (lineRules[r]!.keywords ?? []).filter((k) => k.includes(' ')));
const spanningIndex = new KeywordIndex(spanningKeywords);
const SPAN_REACH = Math.max(0, ...spanningKeywords.flat().map((k) => k.length - 1));

/** What the scan of one version shares between its files. */
interface SkillScan {
  shell: ShellBudget;
  /** The text of a file of the version, by its path from the skill's root (what a script sources). */
  text: (path: string) => string | null;
  /** Files the agent is told to read: SKILL.md and the files it names. */
  instructions: ReadonlySet<string>;
  /** How the agent meets each file: SKILL.md, a file it is told to follow, or one it reads. */
  roles: ReadonlyMap<string, Role>;
}

/** Scans a version's files and returns the verdict with its findings. */
export function scanFiles(files: readonly ScanFile[], options: ScanOptions = {}): ScanResult {
  const quote = options.quote ?? true;
  const sorted = [...files].sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
  const byName = new Map(sorted.map((f) => [f.filename, f] as const));
  const text = (path: string) => {
    const f = byName.get(path.replace(/^\.\//, ''));
    return f ? new TextDecoder().decode(f.bytes.subarray(0, 256 * 1024)) : null;
  };
  const roles = rolesOf(
    text('SKILL.md'),
    sorted.map((f) => f.filename),
  );
  const skill: SkillScan = { shell: newShellBudget(), text, instructions: instructionFiles(sorted), roles };
  const raw = new Map<string, RawFinding[]>();
  const evidence = new Map<string, (line: number) => string | null>();
  const flows: FlowFile[] = [];
  for (const file of sorted) {
    const scanned = scanFile(file, skill);
    raw.set(file.filename, scanned.findings);
    evidence.set(file.filename, scanned.evidence);
    flows.push({ filename: file.filename, lines: scanned.flow, ...(scanned.asks?.length ? { asks: scanned.asks } : {}) });
  }
  for (const rule of skillRules) for (const hit of rule.check(flows)) raw.get(hit.file)?.push({ rule, line: hit.line, note: hit.note });
  const findings: Finding[] = sorted.flatMap((file) =>
    perFile((raw.get(file.filename) ?? []).map((f) => weighed(f, evidence.get(file.filename)!))).map((f) => explain(f, file.filename, quote)),
  );
  return { verdict: verdictOf(findings), rulesVersion, findings: capped(findings) };
}

/** SKILL.md, and every file of the version whose name SKILL.md mentions: what the agent is told to read. */
function instructionFiles(files: readonly ScanFile[]): Set<string> {
  const names = new Set(['SKILL.md']);
  const skill = files.find((f) => f.filename === 'SKILL.md');
  if (!skill) return names;
  const text = new TextDecoder().decode(skill.bytes.subarray(0, 256 * 1024));
  for (const f of files) {
    const base = f.filename.slice(f.filename.lastIndexOf('/') + 1);
    if (f.filename !== 'SKILL.md' && (text.includes(f.filename) || (base.length > 4 && text.includes(base)))) names.add(f.filename);
  }
  return names;
}

function scanFile(
  file: ScanFile,
  skill: SkillScan,
): { findings: RawFinding[]; flow: FlowLine[]; asks?: FlowLine[]; evidence: (line: number) => string | null } {
  const content = readFileContent(file.bytes);
  if (content.kind === 'binary') {
    const binary = { filename: file.filename, bytes: file.bytes, executable: file.executable ?? false, format: content.format };
    const whole = binaryRules.flatMap((rule) => {
      const hit = rule.check(binary);
      return hit ? [found(rule, 0, hit)] : [];
    });
    // What a binary says in readable runs is read like a script: a polyglot runs in a shell.
    return {
      findings: [...whole, ...scanText(file.filename, content.strings, 'code', 0, newBudget(content.strings.length))],
      flow: [],
      evidence: () => 'code that runs',
    };
  }
  const { text } = content;
  const kind = fileKindOf(file.filename, text);
  const physical = splitLines(text);
  const code = codeLines(physical, kind);
  const lines = logicalLines(physical, code, /\.ps[dm]?1$/i.test(file.filename));
  const audience = audienceOf(file.filename, text, kind, lines, skill.instructions.has(file.filename));
  const budget = newBudget(text.length);
  const findings = scanText(file.filename, text, kind, 0, budget, undefined, false, audience, { physical, code, lines });

  // What the code does, as the readers see it: commands as they run, strings as they are computed.
  const numbered = (number: number) => lineNumbered(lines, number);
  const dir = file.filename.includes('/') ? file.filename.slice(0, file.filename.lastIndexOf('/') + 1) : '';
  const include = (path: string) => skill.text(`${dir}${path}`) ?? skill.text(path);
  const derived = readings(file.filename, text, kind, physical, lines, skill.shell, include).filter((d) => differs(d.text, numbered(d.line)?.text));
  if (derived.length > 0) {
    const origin = derived.map((d) => d.line);
    const derivedAudience: Audience = {
      documentation: (line, excerpt) => {
        const source = numbered(origin[line.number - 1] ?? 0);
        return source ? audience.documentation(source, excerpt) : null;
      },
    };
    const derivedText = derived.map((d) => d.text.replace(/\n/g, ' ')).join('\n');
    const reading = scanText(file.filename, derivedText, 'code', 1, budget, { line: 0, lines: origin, via: 'as it runs' }, false, derivedAudience);
    for (const rule of derivedRules) {
      const pairs = derived.map((d) => ({ line: d.line, reading: d.text, written: numbered(d.line)?.text ?? '' }));
      for (const { line, ...hit } of rule.check(reading, findings, pairs)) {
        const source = numbered(line);
        const why = source ? audience.documentation(source) : null;
        findings.push({
          ...found(rule, line, hit),
          ...(why && lowerable(rule) ? { severity: 'low' as const, note: `${hit.note}; documentation: ${why}` } : {}),
        });
      }
    }
    findings.push(...reading);
  }
  // A file marked executable is a program, whatever its name says.
  const evidence = file.executable ? () => 'code that runs' : evidenceOf(kind, lines, skill.roles.get(file.filename) ?? 'read');
  const flow: FlowLine[] = [];
  const asks: FlowLine[] = [];
  for (const [i, line] of lines.entries()) {
    // A request to the user for a secret, addressed to the agent: read with the next line, for a sentence wraps.
    if (kind === 'markdown' && !line.code && asksForSecret(line.text) && evidence(line.number) && !audience.documentation(line)) {
      const next = lines[i + 1];
      asks.push({ line: line.number, text: next && !next.code ? `${line.text} ${next.text}` : line.text });
    }
    if (!(line.code || kind === 'code' || line.text.includes('`')) || audience.documentation(line)) continue;
    if (line.code || kind === 'code') flow.push({ line: line.number, text: line.text });
    // Commands in prose (`tar czf /tmp/k.tgz ~/.ssh`) are what a reader, or an agent, runs.
    else if (line.text.includes('`')) for (const m of line.text.matchAll(/`([^`\n]{4,400})`/g)) flow.push({ line: line.number, text: m[1]! });
  }
  for (const d of derived) {
    const source = numbered(d.line);
    if (!source || !audience.documentation(source)) flow.push({ line: d.line, text: matchingForm(d.text) });
  }
  return { findings, flow, asks, evidence };
}

const SHELL_FENCE = /^(?:|sh|bash|zsh|shell|console|terminal|shellsession|ksh|fish)$/;
const SHELL_FILE = /\.(?:sh|bash|zsh|ksh|command)$/i;

/** The readers' readings of a file: its shell commands as they run and its scripts' folded strings, by source line. */
function readings(
  filename: string,
  text: string,
  kind: FileKind,
  physical: readonly string[],
  lines: readonly LineContext[],
  shell: ShellBudget,
  include: (path: string) => string | null,
): FlowLine[] {
  const out: FlowLine[] = [];
  if (kind === 'markdown') {
    for (const block of fencedBlocks(physical)) {
      const body = physical.slice(block.first - 1, block.last).join('\n');
      const offset = block.first - 1;
      if (SHELL_FENCE.test(block.tag)) for (const l of readShell(body, shell, include)) out.push({ line: l.line + offset, text: l.text });
      const language = block.tag ? scriptLanguage('', block.tag) : null;
      if (language) for (const l of foldStrings(body, language)) out.push({ line: l.line + offset, text: l.text });
    }
    return out;
  }
  if (kind !== 'code') return out;
  const language = scriptLanguage(filename);
  if (language) return foldStrings(text, language);
  const base = filename.slice(filename.lastIndexOf('/') + 1);
  if (SHELL_FILE.test(filename) || /^#!\S*(?:\/|env\s+)(?:ba|z|k|da)?sh\b/.test(text) || !base.includes('.')) {
    const first = lines[0]?.number ?? 1;
    for (const l of readShell(text, shell, include)) out.push({ line: l.line + first - 1, text: l.text });
  }
  return out;
}

/**
 * A reading worth reading again: it says something the line as written does not. Quotes and
 * spaces alone are no news (the matching form already joins `c"u"rl`); a folded Python `'.s' 'sh'`
 * is, and so is every substituted variable or decoded string.
 */
function differs(reading: string, written: string | undefined): boolean {
  const squash = (s: string) => s.replace(/["'\s]/g, '');
  return written === undefined || squash(reading) !== squash(written) || /["']\s{1,8}["']/.test(written);
}

/**
 * Every finding in one text: the file itself at depth 0, decoded runs and hidden blocks deeper.
 * Findings in decoded text are reported on the line the encoded run sits on.
 */
function scanText(
  filename: string,
  text: string,
  kind: FileKind,
  depth: number,
  budget: Budget,
  /** Where findings in decoded or derived text are reported: one line, or a line for each line of the text. */
  origin?: { line: number; lines?: readonly number[]; via: string },
  /** Hidden blocks are scanned one block per line: neighbouring lines are not one sentence. */
  separateLines = false,
  audience: Audience = INSTRUCTIONS,
  prepared?: { physical: string[]; code: boolean[]; lines: LineContext[] },
): RawFinding[] {
  const physical = prepared?.physical ?? splitLines(text);
  const code = prepared?.code ?? codeLines(physical, kind);
  const lines = prepared?.lines ?? logicalLines(physical, code, /\.ps[dm]?1$/i.test(filename));
  const at = (line: number) => (origin ? (origin.lines?.[line - 1] ?? origin.line) : line);
  const findings: RawFinding[] = [];
  // Findings the verdict policy lowered (documentation, known installers): listed, never combined.
  const lowered: RawFinding[] = [];
  const keep = (rule: Rule, line: LineContext | undefined, number: number, hit: Hit) => {
    const raw = found(rule, number, hit, origin?.via);
    const why = loweredBecause(rule, hit, line, audience);
    if (!why) return findings.push(raw);
    if (severityRank(rule.severity) > severityRank('low')) {
      raw.severity = 'low';
      raw.note = raw.note ? `${raw.note}; ${why}` : why;
    }
    return lowered.push(raw);
  };

  const file: LineFile = { filename, kind };
  // Which rules each line could match, lines × rules, in one array.
  const tried = new Uint8Array(lines.length * RULES);
  // A rule that has fired this often in one text has made its point: it is tried no more, so
  // a file of a million lines that each trip it costs what its lines cost, not a finding each.
  const hits = new Uint32Array(RULES);
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    if (!NOT_BLANK.test(line.text)) {
      // Nothing but white space and invisible characters: only the rules about those apply.
      if (!line.invisible) continue;
      for (const i of onBlankLines) tried[n * RULES + i] = 1;
    } else candidates(line, tried, n * RULES);
    for (let i = 0; i < RULES; i++) {
      if (tried[n * RULES + i] === 0 || hits[i]! >= MAX_HITS_PER_RULE) continue;
      const rule = lineRules[i]!;
      const hit = lineHit(rule, line, file);
      if (hit) {
        hits[i]!++;
        keep(rule, line, at(line.number), hit);
      }
    }
  }
  const lineAt = (number: number) => lineNumbered(lines, number);
  if (kind === 'markdown' && !separateLines) {
    acrossLines(lines, tried, file, (line, rule, hit) => keep(rule, line, at(line.number), hit));
  }

  if (depth < MAX_DEPTH) {
    const decodings: Array<{ line: number } & Decoded> = [];
    for (const line of lines) {
      for (const d of decodeLine(line.text, budget)) decodings.push({ line: line.number, ...d });
      if (line.invisible && invisibleMarks(line.raw).payload) {
        const hidden = smuggledText(line.raw);
        if (hidden) decodings.push({ line: line.number, encoding: 'invisible characters', text: hidden });
      }
    }
    for (const { index, decoded } of decodeWrappedBase64(physical, budget)) decodings.push({ line: index + 1, ...decoded });
    for (const d of decodings) {
      const via = origin ? `${origin.via}, then ${d.encoding}` : `decoded from ${d.encoding}`;
      // What a line decodes to is addressed as the line is: a payload quoted in a detection rule is documentation too.
      const run = lineAt(d.line);
      const inherited: Audience = { documentation: () => (run ? audience.documentation(run) : null) };
      const inside = scanText(filename, d.text, 'code', depth + 1, budget, { line: at(d.line), via }, false, inherited);
      for (const f of inside) (f.severity ? lowered : findings).push(f);
      for (const rule of decodedRules) {
        const hit = rule.check(d, inside);
        if (hit) keep(rule, run, at(d.line), hit);
      }
    }
  }

  let blocks: ReturnType<typeof hiddenBlocks> | undefined;
  const scan: FileScan = {
    filename,
    kind,
    text,
    lines,
    depth,
    findings,
    hiddenBlocks: () => (blocks ??= kind === 'code' ? [] : hiddenBlocks(text, physical, lineStarts(text), (line) => code[line - 1] ?? false)),
    scanSnippet: (snippet) => (depth < MAX_DEPTH ? scanText(filename, snippet, 'markdown', depth + 1, budget, undefined, true) : []),
  };
  for (const rule of fileRules) for (const { line, ...hit } of rule.check(scan)) keep(rule, lineAt(line), at(line), hit);
  return [...findings, ...lowered];
}

function lineHit(rule: LineRule, line: LineContext, file: LineFile): Hit | null {
  return rule.pattern ? matchHit(rule.pattern.exec(line.text)) : rule.check!(line, file);
}

/**
 * Prose is wrapped: "Do not mention this" on one line and "to the user" on the next is one
 * sentence. Each pair of neighbouring prose lines is read again as one by the rules for phrases,
 * and what matches only across the line break is reported on the line where the match starts.
 */
function acrossLines(lines: readonly LineContext[], tried: Uint8Array, file: LineFile, report: (line: LineContext, rule: LineRule, hit: Hit) => void): void {
  const spanning = new Uint8Array(wrapping.length);
  for (let i = 0; i + 1 < lines.length; i++) {
    const a = lines[i]!;
    const b = lines[i + 1]!;
    if (a.code || b.code || !NOT_BLANK.test(a.text) || !NOT_BLANK.test(b.text) || /^\s{0,3}#/.test(b.text)) continue;
    let text: string | undefined;
    // The rules either line could match, and those whose keyword is itself split by the break.
    spanning.fill(0);
    spanningIndex.scanAcross(a.text, b.text, SPAN_REACH, spanning);
    for (let w = 0; w < wrapping.length; w++) {
      const r = wrapping[w]!;
      if (spanning[w] === 0 && tried[i * RULES + r] === 0 && tried[(i + 1) * RULES + r] === 0) continue;
      const rule = lineRules[r]!;
      text ??= `${a.text} ${b.text}`;
      const m = rule.pattern?.exec(text);
      const hit = rule.pattern
        ? matchHit(m ?? null)
        : rule.check!({ number: a.number, raw: `${a.raw} ${b.raw}`, text, code: false, invisible: a.invisible || b.invisible }, file);
      if (hit === null || hit === true || !hit.excerpt) continue;
      const start = m ? m.index : text.indexOf(hit.excerpt);
      if (start >= 0 && start < a.text.length && start + hit.excerpt.length > a.text.length + 1) report(a, rule, hit);
    }
  }
}

function matchHit(m: RegExpExecArray | null): Hit | null {
  return m ? { excerpt: m[0] } : null;
}

function found(rule: Rule, line: number, hit: Hit, via?: string): RawFinding {
  const detail = hit === true ? {} : hit;
  const note = [detail.note, via].filter(Boolean).join('; ');
  return { rule, line, ...(note ? { note } : {}), ...(detail.excerpt ? { excerpt: detail.excerpt } : {}) };
}

/** One finding per rule and line (the first, which is the least deeply decoded), in line then table order, bounded per rule. */
function perFile(raw: readonly RawFinding[]): RawFinding[] {
  const seen = new Set<string>();
  const perRule = new Map<string, number>();
  return [...raw]
    .sort((a, b) => a.line - b.line || ruleOrder.get(a.rule.id)! - ruleOrder.get(b.rule.id)!)
    .filter((f) => {
      const key = `${f.rule.id}:${f.line}`;
      if (seen.has(key)) return false;
      seen.add(key);
      const count = (perRule.get(f.rule.id) ?? 0) + 1;
      perRule.set(f.rule.id, count);
      return count <= MAX_PER_RULE_AND_FILE;
    });
}

/** Keeps the worst findings when there are too many, then restores file and line order. */
function capped(findings: Finding[]): Finding[] {
  if (findings.length <= MAX_FINDINGS) return findings;
  const keep = new Set(
    findings
      .map((f, i) => ({ f, i }))
      .sort((a, b) => severityRank(b.f.severity) - severityRank(a.f.severity) || a.i - b.i)
      .slice(0, MAX_FINDINGS)
      .map(({ i }) => i),
  );
  return findings.filter((_, i) => keep.has(i));
}
