import { CATEGORIES, type Category } from '../finding.ts';
import type { FileKind, LineContext } from '../read/source-text.ts';

/**
 * Who is being told. The same words are an attack when they instruct the agent and a lesson when
 * they quote, warn against or detect the attack: `curl … | bash` under "never run" in a security
 * guide, `eval(atob(` as a YARA string, `~/.aws/credentials` in a Semgrep pattern, a reverse shell
 * in a pentest report's findings table. Text of that kind is documentation, and a finding in it is
 * at most `low` (judge/policy.ts); it also takes no part in the rules that combine findings.
 *
 * What counts as documentation, and why (the reason goes into the finding's message):
 * - a detection-rule file: YARA, Sigma, Semgrep, Snort/Suricata rules;
 * - a regular-expression literal or pattern in code (`re.compile(r'…')`, `new RegExp(…)`, `/…/`);
 * - a row of a Markdown table (an indicator table);
 * - a prose line that warns before it quotes ("never", "do not", "malicious", "attackers"…);
 * - a code block in a section whose prose warns, and does not tell the reader to run anything.
 * Text that instructs the agent is never documentation: SKILL.md's own steps, front matter, a
 * hidden block. Hidden text and committed secrets are findings whoever reads them.
 */

/** Categories a documentation context lowers; hidden text and secrets stay what they are. */
const LOWERED = new Set<Category>(CATEGORIES.filter((c) => c !== 'hidden-text' && c !== 'secret'));
/** Rules whose own wording is a negation ("do not tell the user"), which a negation cannot excuse. */
const NEGATION_IS_THE_RULE = new Set(['conceal-from-user', 'concealed-risky-action', 'hidden-instructions']);

const WARNING =
  /\b(?:never|don'?t|do\s{1,4}not|avoid|refuse|beware|warning|dangerous|malicious|malware|attackers?|stealers?|phishing|scam|red\s{0,2}flags?|indicators?|iocs?|detect(?:s|ed|ion|or)?|such\s{1,4}as|e\.g\.|for\s{1,4}example|looks?\s{1,4}like|recogni[sz]e|suspicious|exploit(?:s|ed|ation)?|vulnerab\w{0,10}|pentest\w{0,4}|red[- ]team\w{0,4}|threat|payloads?|stop)\b/i;
/** Telling the reader to run something: a section that does is instructions, whatever else it says. */
const RUN_IMPERATIVE =
  /(?:^|[.!:]\s{1,4}|^\s{0,6}(?:[-*]|\d{1,2}\.)\s{1,4})(?:run|execute|paste|install|type|enter|copy\s{1,4}and\s{1,4}paste)\b|\b(?:you\s{1,4}must|please|first|then)\s{1,4}(?:run|execute|install|paste)\b/i;
const REGEX_CONSTRUCT =
  /\bre\.(?:compile|search|match|fullmatch|findall|finditer|sub|split)\s{0,4}\(|\bnew\s{1,4}RegExp\s{0,4}\(|\bRegExp\s{0,4}\(|(?:^|[=(,:]|\breturn)\s{0,4}\/(?![/*\s])(?=[^/\n]{0,400}[\\[(^$*+?|])(?:\\.|[^/\n\\]){2,}\/[dgimsuy]{0,6}(?=\s{0,4}(?:[;,)\]}]|$|nocase|ascii|wide|fullword|private|xor|base64)|\.(?:test|exec)\b)|\bpattern(?:-regex|-either|-inside|s)?\s{0,4}:|\bregexp?\s{0,4}[:=]|\bgrep\s{1,4}-\w{0,4}[EPe]\w{0,4}\s|\b\w{0,30}(?:PATTERNS|INDICATORS|SIGNATURES|IOCS|REGEXES|REGEXPS)\b/;
/** What REGEX_CONSTRUCT cannot match without: a literal needs two slashes, the other forms a word. */
function mayConstructRegex(text: string): boolean {
  const slash = text.indexOf('/');
  return (slash !== -1 && text.includes('/', slash + 1)) || REGEX_WORD.test(text);
}
const REGEX_WORD = /re\.|RegExp|pattern|regex|grep|PATTERNS|INDICATORS|SIGNATURES|IOCS|REGEXES|REGEXPS/;
const DETECTION_FILE = /\.(?:yara?|sigma|rules)$/i;
const TEST_DATA =
  /(?:^|\/)(?:tests?|spec|__tests__|fixtures|testdata|test-data|samples)\/(?:[^/]{1,200}\/){0,4}[^/]{1,200}\.(?:json|jsonl|ya?ml|csv|tsv|txt)$/i;
/** Words that name what the line quotes as an attack, wherever they stand on the line. */
const NAMES_ATTACK = /\b(?:malicious|malware|phishing|scam|lures?|fake|attackers?|stealers?|infostealers?|never\s{1,4}(?:run|paste|do|type|enter|ask))\b/i;
const DETECTION_CONTENT =
  /^\s{0,4}(?:rule\s{1,4}\w{1,80}\s{0,4}(?::[^{]{0,80})?\{|detection\s{0,2}:|logsource\s{0,2}:|alert\s{1,4}(?:tcp|udp|http|dns|ip)\s)|^\s{0,8}-?\s{0,2}(?:pattern-regex|pattern-either|patterns)\s{0,2}:/m;

export interface Audience {
  /** Why a line is documentation, or null when it may instruct. */
  documentation(line: LineContext, excerpt?: string): string | null;
}

/** Nothing is documentation: decoded payloads, hidden blocks, what a script computes. */
export const INSTRUCTIONS: Audience = { documentation: () => null };

/** How a file's lines are addressed: which of them quote, warn or detect rather than instruct. */
export function audienceOf(filename: string, text: string, kind: FileKind, lines: readonly LineContext[], instructionFile: boolean): Audience {
  if (DETECTION_FILE.test(filename) || (/\.(?:ya?ml|json|toml)$/i.test(filename) && DETECTION_CONTENT.test(text.slice(0, 64 * 1024))))
    return { documentation: () => 'a detection rule' };
  // Test data the skill never hands the agent: red-team cases, sample inputs.
  if (!instructionFile && TEST_DATA.test(filename)) return { documentation: () => 'test data' };
  const warningSections = kind === 'markdown' ? sectionsThatWarn(lines, instructionFile) : new Set<number>();
  const ruleBlocks = kind === 'markdown' ? detectionBlocks(lines) : new Set<number>();
  // Front matter (and its `metadata`) is read by the agent as it is: never documentation.
  const frontMatterEnd = kind === 'markdown' && lines[0]?.text.trim() === '---' ? (lines.find((l) => l.number > 1 && l.text.trim() === '---')?.number ?? 0) : 0;
  // What a line is does not depend on the excerpt asked about when the line is code, or when none
  // is: those answers are kept, for the scan asks of most lines more than once.
  const known = new Map<LineContext, string | null>();
  const documentation = (line: LineContext, excerpt?: string): string | null => {
    if (!line.code && excerpt !== undefined) return judge(line, excerpt);
    const kept = known.get(line);
    if (kept !== undefined) return kept;
    const why = judge(line, excerpt);
    known.set(line, why);
    return why;
  };
  return { documentation };

  function judge(line: LineContext, excerpt: string | undefined): string | null {
    if (line.number <= frontMatterEnd) return null;
    if (line.code) {
      if (ruleBlocks.has(line.number)) return 'a detection rule';
      if (mayConstructRegex(line.text) && REGEX_CONSTRUCT.test(line.text)) return 'a pattern that detects it';
      if (kind === 'markdown' && warningSections.has(line.number)) return 'a code block in a section that warns against it';
      return null;
    }
    if (kind !== 'markdown') return null;
    if (/^\s{0,3}\|.{0,2000}\|/.test(line.text)) return 'a row of a table';
    const at = excerpt ? line.text.indexOf(excerpt) : -1;
    const before = at > 0 ? line.text.slice(0, at) : line.text;
    // The warning must govern the clause the match is in: "never run `curl … | sh`", not
    // "do not tell the user; read ~/.ssh/id_rsa".
    const clause =
      before
        .slice(-80)
        .split(/[.;!?]|\s(?:and|then|but|also|next|after\s{1,4}that)\s/i)
        .pop() ?? '';
    if (WARNING.test(clause) || NAMES_ATTACK.test(line.text)) return 'prose that warns against it';
    // Inside quotation marks, the words are someone else's: "verify you are human: press Win+R…".
    return at > 0 && (before.match(/["“”]/g) ?? []).length % 2 === 1 ? 'a quotation' : null;
  }
}

/** Whether a rule's finding may be lowered to documentation. */
export function lowerable(rule: { id: string; category: Category }): boolean {
  return LOWERED.has(rule.category) && !NEGATION_IS_THE_RULE.has(rule.id);
}

/**
 * The code lines of Markdown sections (from one heading to the next) whose prose warns and never
 * tells the reader to run anything. In a file the agent is told to follow, a section's code is
 * what it runs, whatever the prose says around it, unless the section names the attack as one.
 */
function sectionsThatWarn(lines: readonly LineContext[], instructionFile: boolean): Set<number> {
  const out = new Set<number>();
  // The section is lines[start] up to the next heading.
  let start = 0;
  const close = (end: number) => {
    const prose = (test: (text: string) => boolean) => {
      for (let i = start; i < end; i++) if (!lines[i]!.code && test(lines[i]!.text)) return true;
      return false;
    };
    const warns = prose((t) => WARNING.test(t));
    const runs = warns && prose((t) => RUN_IMPERATIVE.test(t));
    const names = warns && !runs && instructionFile && prose((t) => ABOUT_ATTACKS.test(t));
    if (warns && !runs && (!instructionFile || names)) for (let i = start; i < end; i++) if (lines[i]!.code) out.add(lines[i]!.number);
    start = end;
  };
  for (let i = 0; i < lines.length; i++) if (!lines[i]!.code && /^\s{0,3}#{1,6}\s/.test(lines[i]!.text)) close(i);
  close(lines.length);
  return out;
}
/** Words of a section about attacks: in a file the agent follows, only such a section's code is documentation. */
const ABOUT_ATTACKS = /\b(?:malicious|malware|attack(?:s|ers?)?|stealers?|exploit|indicators?|iocs?|detection|phishing|red[- ]team|pentest)\b/i;

/** Lines of fenced blocks that hold detection rules (```yara, ```sigma…) or that open with one. */
function detectionBlocks(lines: readonly LineContext[]): Set<number> {
  const out = new Set<number>();
  let inRules = false;
  let inBlock = false;
  for (const line of lines) {
    const fence = /^\s{0,3}(?:`{3,}|~{3,})\s{0,4}([\w-]{0,20})/.exec(line.raw);
    if (fence && !line.code) {
      inBlock = !inBlock;
      inRules = inBlock && /^(?:yara|yar|sigma|semgrep|snort|suricata)$/i.test(fence[1] ?? '');
      continue;
    }
    if (inRules && line.code) out.add(line.number);
  }
  return out;
}

/**
 * How the agent meets a file: `skill` is SKILL.md (its prose is addressed to the agent and its
 * blocks are what it runs); `followed` a file SKILL.md tells it to follow ("carry out the steps in
 * docs/setup.md"); `read` any other file (references loaded for context, files never named).
 */
export type Role = 'skill' | 'followed' | 'read';

/** A sentence of SKILL.md that tells the agent to follow a file it names, rather than read it for context. */
const FOLLOWS_FILE =
  /\b(?:run|execute|follow|carry\s{1,4}out|apply|perform|complete|obey|do\s{1,4}what|go\s{1,4}through|work\s{1,4}through|steps?\s{1,4}(?:in|from|listed))\b/i;

/** The role of each file of a version: SKILL.md, the files it tells the agent to follow, and the rest. */
export function rolesOf(skillText: string | null, filenames: readonly string[]): Map<string, Role> {
  const roles = new Map<string, Role>(filenames.map((f) => [f, f === 'SKILL.md' ? 'skill' : 'read']));
  if (skillText === null) return roles;
  // Sentences: a wrapped one is read whole; a list item, table row or heading ends one.
  let sentences: string[] | undefined;
  for (const name of filenames) {
    if (name === 'SKILL.md') continue;
    const base = name.slice(name.lastIndexOf('/') + 1);
    const names = (s: string) => s.includes(name) || (base.length > 4 && s.includes(base));
    if (!names(skillText)) continue;
    sentences ??= skillText.split(/(?<=[.!?])\s|\n\s*\n|\n(?=\s{0,3}(?:[-*|#]|\d{1,2}\.))/);
    // The verb is the sentence's, not a code span's (`run:` blocks).
    if (sentences.some((s) => names(s) && FOLLOWS_FILE.test(s.replace(/`[^`\n]*`/g, ' ')))) roles.set(name, 'followed');
  }
  return roles;
}

/** Whether a rule's finding can rest on documentation at all: hidden text and committed secrets are findings whoever reads them. */
export function documentable(rule: { category: Category }): boolean {
  return LOWERED.has(rule.category);
}

/**
 * What a block may rest on (judge/verdict.ts): why a line is code that runs or an imperative
 * addressed to the agent, or null when it only documents. Code files run (scripts, executable
 * files, manifests, build files), and so does what a binary says (line 0). In Markdown and plain
 * text: SKILL.md is addressed to the agent throughout, prose and blocks; so is a file SKILL.md tells
 * the agent to follow. In any other text only a line that tells the reader to run something, and
 * the blocks of a section that does, are addressed; the rest (a reference's prose, a block quoted
 * as an example) documents, however much an attack it shows.
 */
export function evidenceOf(kind: FileKind, lines: readonly LineContext[], role: Role): (line: number) => string | null {
  if (kind !== 'markdown') return () => 'code that runs';
  if (role === 'skill') return (n) => (n === 0 ? 'code that runs' : 'SKILL.md, addressed to the agent');
  if (role === 'followed') return () => 'a file SKILL.md tells the agent to follow';
  // Read on the first question: most files are never asked about (only critical findings and requests for secrets are).
  let running: Set<number> | undefined;
  let imperative: Set<number> | undefined;
  return (n) => {
    if (n === 0) return 'code that runs';
    imperative ??= new Set(lines.filter((l) => !l.code && RUN_IMPERATIVE.test(l.text)).map((l) => l.number));
    if (imperative.has(n)) return 'an imperative addressed to the agent';
    running ??= sectionsThatRun(lines);
    return running.has(n) ? 'a block its section tells the reader to run' : null;
  };
}

/** The code lines of Markdown sections whose prose tells the reader to run something. */
function sectionsThatRun(lines: readonly LineContext[]): Set<number> {
  const out = new Set<number>();
  let start = 0;
  const close = (end: number) => {
    let runs = false;
    for (let i = start; i < end && !runs; i++) runs = !lines[i]!.code && RUN_IMPERATIVE.test(lines[i]!.text);
    if (runs) for (let i = start; i < end; i++) if (lines[i]!.code) out.add(lines[i]!.number);
    start = end;
  };
  for (let i = 0; i < lines.length; i++) if (!lines[i]!.code && /^\s{0,3}#{1,6}\s/.test(lines[i]!.text)) close(i);
  close(lines.length);
  return out;
}
