/**
 * What the scanner reports: one finding per rule, file and line, and the verdict they add up to
 * (docs/scanning.md has the table of rules and the verdict mapping).
 */

export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const CATEGORIES = [
  'download-execute',
  'encoded-payload',
  'credential-access',
  'exfiltration',
  'persistence',
  'social-engineering',
  'prompt-injection',
  'hidden-text',
  'secret',
] as const;
export type Category = (typeof CATEGORIES)[number];

export interface Finding {
  rule: string;
  category: Category;
  severity: Severity;
  file: string;
  /** 1-based; 0 for a finding about the whole file (a binary). */
  line: number;
  message: string;
}

export const VERDICTS = ['clean', 'suspicious', 'malicious'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** The worse of two verdicts: the order of {@link VERDICTS}. */
export const worseVerdict = (a: Verdict, b: Verdict): Verdict => (VERDICTS.indexOf(b) > VERDICTS.indexOf(a) ? b : a);

/** An admin's approval, on appeal, of a version whose scan refused or flagged it (docs/api.md §7.15). */
export interface Review {
  /** The admin's login. */
  by: string;
  at: string;
}

export interface ScanResult {
  verdict: Verdict;
  rulesVersion: string;
  findings: Finding[];
  /** Present when an admin approved the version on appeal: its findings were read and accepted. */
  reviewed?: Review;
}

/** Orders severities so that a higher number is worse. */
export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}
