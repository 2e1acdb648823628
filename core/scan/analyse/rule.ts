import type { Decoded } from '../normalise/decode.ts';
import type { BinaryFormat } from '../read/file-content.ts';
import type { Category, Severity } from '../finding.ts';
import type { FlowFile } from './flows.ts';
import type { HiddenBlock } from '../read/hidden-blocks.ts';
import type { FileKind, LineContext } from '../read/source-text.ts';

/**
 * The shape of a rule in the table (rules.ts). A rule reads one of four things: a line, a run
 * that was decoded from an encoding, a whole file (for rules that combine what several lines
 * say), or a binary file's bytes.
 */

/**
 * What a rule reports beyond its reason: `note` is about the finding and never quotes the
 * file (an encoding, a code point, a kind of credential), `excerpt` is a short piece of the
 * file, left out when content must not be quoted, `lowered` says why the finding is at most `low`
 * (judge/policy.ts): a known installer from its own host. `true` reports the reason alone.
 */
export type Hit = true | { note?: string; excerpt?: string; lowered?: string };

interface RuleBase {
  id: string;
  category: Category;
  severity: Severity;
  /** One line saying why this is a risk, shown to authors and installers. */
  reason: string;
}

export interface LineFile {
  filename: string;
  kind: FileKind;
}

export interface LineRule extends RuleBase {
  scope: 'line';
  /**
   * Lower-case strings of which a line must contain at least one for the rule to be tried: a
   * cheap filter that keeps most prose lines away from most patterns. Leave out when unsure.
   */
  keywords?: readonly string[];
  /** Tried only on lines that hold an invisible or bidi character: the rule is about those. */
  invisible?: true;
  /** Matched against the line's matching form; the match is the excerpt. */
  pattern?: RegExp;
  check?: (line: LineContext, file: LineFile) => Hit | null;
}

export interface DecodedRule extends RuleBase {
  scope: 'decoded';
  /** Sees the decoded text and what the other rules found in it. */
  check: (decoded: Decoded, inside: readonly RawFinding[]) => Hit | null;
}

export interface FileScan extends LineFile {
  text: string;
  lines: readonly LineContext[];
  /** What the line and decoded rules found so far in this file. */
  findings: readonly RawFinding[];
  hiddenBlocks: () => readonly HiddenBlock[];
  /** Scans other text (hidden blocks joined one per line) with every rule, one level deeper. */
  scanSnippet: (text: string) => RawFinding[];
  /** 0 for the file itself, more for text decoded from it. */
  depth: number;
}

export interface FileRule extends RuleBase {
  scope: 'file';
  check: (file: FileScan) => Array<{ line: number } & Exclude<Hit, true>>;
}

export interface BinaryFile {
  filename: string;
  bytes: Uint8Array;
  executable: boolean;
  format: BinaryFormat;
}

export interface BinaryRule extends RuleBase {
  scope: 'binary';
  check: (file: BinaryFile) => Hit | null;
}

export interface DerivedRule extends RuleBase {
  scope: 'derived';
  /**
   * Sees what the rules found in a reading of the file (commands as they run, strings as they are
   * computed) and what they found in the file as written.
   */
  check: (
    reading: readonly RawFinding[],
    written: readonly RawFinding[],
    lines: ReadonlyArray<{ line: number; reading: string; written: string }>,
  ) => Array<{ line: number } & Exclude<Hit, true>>;
}

export interface SkillRule extends RuleBase {
  scope: 'skill';
  /** Reads every file of the version at once (analyse/flows.ts). */
  check: (files: readonly FlowFile[]) => Array<{ file: string; line: number; note: string }>;
}

export type Rule = LineRule | DecodedRule | DerivedRule | FileRule | BinaryRule | SkillRule;

/** A finding before it is turned into the public shape (the message is composed last). */
export interface RawFinding {
  rule: Rule;
  line: number;
  note?: string;
  excerpt?: string;
  /** Set when the verdict policy lowered the rule's severity (documentation, a known installer). */
  severity?: Severity;
}
