import type { Finding, Verdict } from './finding.ts';

/**
 * The verdict a set of findings adds up to: `malicious` when any finding is critical (the
 * publish is refused), `suspicious` when any is high or medium (published, and installers are
 * warned), else `clean`. Low findings are context for a reader and never change the verdict:
 * a skill that merely mentions `~/.aws/credentials` in its documentation stays clean.
 */
export function verdictOf(findings: readonly Pick<Finding, 'severity'>[]): Verdict {
  if (findings.some((f) => f.severity === 'critical')) return 'malicious';
  if (findings.some((f) => f.severity === 'high' || f.severity === 'medium')) return 'suspicious';
  return 'clean';
}
