import type { FileBytes } from '../bundle.ts';
import { type Budget, type Decoded, decodeLine, decodeWrappedBase64, newBudget } from './decode.ts';
import { safeExcerpt } from './excerpt.ts';
import { readFileContent } from './file-content.ts';
import { type Finding, type ScanResult, severityRank } from './finding.ts';
import { hiddenBlocks } from './hidden-blocks.ts';
import { invisibleMarks, smuggledText } from './invisible.ts';
import { KeywordIndex } from './keyword-index.ts';
import type { FileScan, Hit, LineFile, LineRule, RawFinding, Rule } from './rule.ts';
import { rules } from './rules.ts';
import { rulesVersion } from './rules-version.ts';
import { codeLines, type FileKind, fileKindOf, type LineContext, lineStarts, logicalLines, splitLines } from './source-text.ts';
import { verdictOf } from './verdict.ts';

/**
 * The scanner: a version's files in, a verdict and findings out. Pure and deterministic: the
 * same files give the same findings in the same order, whatever order they came in. Text is
 * read line by line; encoded runs are decoded and read again, two levels deep at most and
 * within a budget per file, so the cost stays linear in the size of the version.
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

/** Decoding goes this many levels deep: base64 of hex of a command is read, a third layer is not. */
const MAX_DEPTH = 2;
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
const ruleOrder = new Map(rules.map((r, i) => [r.id, i]));
const RULES = lineRules.length;

/** Which line rules a line could match, by their keywords; rules without keywords always could. */
const keywordIndex = new KeywordIndex(lineRules.map((r) => r.keywords ?? []));
const alwaysTried = lineRules.map((r) => r.keywords === undefined);
const keywordless = alwaysTried.flatMap((always, i) => (always ? [i] : []));

/** Marks, from `offset` in `found`, the line rules `text` could match. */
function candidates(text: string, found: Uint8Array = new Uint8Array(RULES), offset = 0): Uint8Array {
  keywordIndex.scan(text.toLowerCase(), found, offset);
  for (let i = 0; i < RULES; i++) if (alwaysTried[i]) found[offset + i] = 1;
  return found;
}

/** Rules whose phrases prose wraps over lines; commands and characters are matched per line. */
const WRAPPING = new Set<string>(['prompt-injection', 'social-engineering', 'credential-access']);

/** Scans a version's files and returns the verdict with its findings. */
export function scanFiles(files: readonly ScanFile[], options: ScanOptions = {}): ScanResult {
  const quote = options.quote ?? true;
  const findings: Finding[] = [];
  const sorted = [...files].sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
  for (const file of sorted) {
    const raw = scanFile(file);
    findings.push(...perFile(raw).map((f) => toFinding(f, file.filename, quote)));
  }
  return { verdict: verdictOf(findings), rulesVersion, findings: capped(findings) };
}

function scanFile(file: ScanFile): RawFinding[] {
  const content = readFileContent(file.bytes);
  if (content.kind === 'binary') {
    const binary = { filename: file.filename, bytes: file.bytes, executable: file.executable ?? false, format: content.format };
    const whole = binaryRules.flatMap((rule) => {
      const hit = rule.check(binary);
      return hit ? [found(rule, 0, hit)] : [];
    });
    // What a binary says in readable runs is read like a script: a polyglot runs in a shell.
    return [...whole, ...scanText(file.filename, content.strings, 'code', 0, newBudget())];
  }
  const kind = fileKindOf(file.filename, content.text);
  return scanText(file.filename, content.text, kind, 0, newBudget());
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
  origin?: { line: number; via: string },
  /** Hidden blocks are scanned one block per line: neighbouring lines are not one sentence. */
  separateLines = false,
): RawFinding[] {
  const physical = splitLines(text);
  const code = codeLines(physical, kind);
  const powershell = /\.ps[dm]?1$/i.test(filename);
  const lines = logicalLines(physical, code, powershell);
  const at = (line: number) => origin?.line ?? line;
  const findings: RawFinding[] = [];

  const file: LineFile = { filename, kind };
  // Which rules each line could match, lines × rules, in one array.
  const tried = new Uint8Array(lines.length * RULES);
  // A rule that has fired this often in one text has made its point: it is tried no more, so
  // a file of a million lines that each trip it costs what its lines cost, not a finding each.
  const hits = new Uint32Array(RULES);
  for (const [n, line] of lines.entries()) {
    if (line.text.trim() === '') {
      // Nothing but white space and invisible characters: only the rules about those apply.
      if (!line.invisible) continue;
      for (const i of keywordless) tried[n * RULES + i] = 1;
    } else candidates(line.text, tried, n * RULES);
    for (let i = 0; i < RULES; i++) {
      if (tried[n * RULES + i] === 0 || hits[i]! >= MAX_HITS_PER_RULE) continue;
      const rule = lineRules[i]!;
      const hit = lineHit(rule, line, file);
      if (hit) {
        hits[i]!++;
        findings.push(found(rule, at(line.number), hit, origin?.via));
      }
    }
  }
  if (kind === 'markdown' && !separateLines) {
    for (const { line, rule, hit } of acrossLines(lines, tried, file)) findings.push(found(rule, at(line), hit, origin?.via));
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
      const inside = scanText(filename, d.text, 'code', depth + 1, budget, { line: at(d.line), via });
      findings.push(...inside);
      for (const rule of decodedRules) {
        const hit = rule.check(d, inside);
        if (hit) findings.push(found(rule, at(d.line), hit, origin?.via));
      }
    }
  }

  const starts = lineStarts(text);
  let blocks: ReturnType<typeof hiddenBlocks> | undefined;
  const scan: FileScan = {
    filename,
    kind,
    text,
    lines,
    depth,
    findings,
    hiddenBlocks: () => (blocks ??= kind === 'code' ? [] : hiddenBlocks(text, physical, starts, (line) => code[line - 1] ?? false)),
    scanSnippet: (snippet) => (depth < MAX_DEPTH ? scanText(filename, snippet, 'markdown', depth + 1, budget, undefined, true) : []),
  };
  for (const rule of fileRules) {
    for (const { line, ...hit } of rule.check(scan)) findings.push(found(rule, at(line), hit, origin?.via));
  }
  return findings;
}

function lineHit(rule: LineRule, line: LineContext, file: LineFile): Hit | null {
  return rule.pattern ? matchHit(rule.pattern.exec(line.text)) : rule.check!(line, file);
}

/**
 * Prose is wrapped: "Do not mention this" on one line and "to the user" on the next is one
 * sentence. Each pair of neighbouring prose lines is read again as one by the rules for phrases,
 * and what matches only across the line break is reported on the line where the match starts.
 */
function* acrossLines(lines: readonly LineContext[], tried: Uint8Array, file: LineFile): Generator<{ line: number; rule: LineRule; hit: Hit }> {
  const boundary = new Uint8Array(RULES);
  for (let i = 0; i + 1 < lines.length; i++) {
    const [a, b] = [lines[i]!, lines[i + 1]!];
    if (a.code || b.code || a.text.trim() === '' || b.text.trim() === '' || /^\s{0,3}#/.test(b.text)) continue;
    const text = `${a.text} ${b.text}`;
    const pair: LineContext = { number: a.number, raw: `${a.raw} ${b.raw}`, text, code: false, invisible: a.invisible || b.invisible };
    // The rules either line could match, and those whose keyword is itself split by the break.
    boundary.fill(0);
    candidates(`${a.text.slice(-40)} ${b.text.slice(0, 40)}`, boundary);
    for (let r = 0; r < RULES; r++) {
      const rule = lineRules[r]!;
      if (!rule.keywords || !WRAPPING.has(rule.category)) continue;
      if (boundary[r] === 0 && tried[i * RULES + r] === 0 && tried[(i + 1) * RULES + r] === 0) continue;
      const m = rule.pattern?.exec(text);
      const hit = rule.pattern ? matchHit(m ?? null) : rule.check!(pair, file);
      if (hit === null || hit === true || !hit.excerpt) continue;
      const start = m ? m.index : text.indexOf(hit.excerpt);
      if (start >= 0 && start < a.text.length && start + hit.excerpt.length > a.text.length + 1) yield { line: a.number, rule, hit };
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

function toFinding(f: RawFinding, file: string, quote: boolean): Finding {
  const excerpt = quote && f.excerpt ? safeExcerpt(f.excerpt) : '';
  const message = `${f.rule.reason}${f.note ? ` (${f.note})` : ''}${excerpt ? `: ${excerpt}` : ''}`;
  return { rule: f.rule.id, category: f.rule.category, severity: f.rule.severity, file, line: f.line, message };
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
