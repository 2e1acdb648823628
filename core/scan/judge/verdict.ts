import type { Category, Finding, Verdict } from '../finding.ts';
import type { Audience } from '../analyse/audience.ts';
import { documentable, lowerable } from '../analyse/audience.ts';
import { knownInstallerOnly } from '../analyse/installers.ts';
import type { Hit, RawFinding, Rule } from '../analyse/rule.ts';
import type { LineContext } from '../read/source-text.ts';

/**
 * The verdict policy, in one place: what a finding weighs, and what the findings of a version add
 * up to.
 *
 * A finding is at most \`low\` when the text it is in is documentation rather than instructions
 * (analyse/audience.ts: a detection rule, a regex literal, an indicator table, prose or a code
 * block that warns against what it quotes), and when a download-and-run line fetches only from a
 * known vendor installer's own host and path (analyse/installers.ts). Lowered findings are still
 * listed, with the reason, and take no part in the rules that combine findings.
 */
export function loweredBecause(rule: Rule, hit: Hit, line: LineContext | undefined, audience: Audience): string | null {
  if (hit !== true && hit.lowered) return hit.lowered;
  if (!line) return null;
  if (rule.category === 'download-execute' && rule.severity !== 'critical' && knownInstallerOnly(line.text)) return 'a known installer from its own host';
  if (!lowerable(rule)) return null;
  const why = audience.documentation(line, hit === true ? undefined : hit.excerpt);
  return why ? `documentation: ${why}` : null;
}

/** Words that act by being read: an injection in any text the agent reads is addressed to it. */
const READ_TO_ACT = new Set<Category>(['prompt-injection', 'social-engineering']);

/**
 * A block rests on evidence that runs or on an imperative addressed to the agent
 * (analyse/audience.ts, `evidenceOf`). In text that is neither (a reference loaded for context, a
 * block shown as an example of an attack, prose that describes one), what the text shows is judged
 * by whether reading it does anything: code shown there runs for no one, and its finding is `low`,
 * context for a reader; words that act by being read (prompt injection, social engineering) still
 * reach the agent that reads the file, and weigh at most `high`, so the version is flagged and not
 * refused. Hidden text and committed secrets weigh what they weigh wherever they are.
 */
export function weighed(finding: RawFinding, evidence: (line: number) => string | null): RawFinding {
  if (!documentable(finding.rule) || evidence(finding.line)) return finding;
  const severity = finding.severity ?? finding.rule.severity;
  if (READ_TO_ACT.has(finding.rule.category)) {
    if (severity !== 'critical') return finding;
    return withNote({ ...finding, severity: 'high' }, 'documentation: text the agent may read, but no instruction to do what it shows');
  }
  if (severity === 'low') return finding;
  return withNote({ ...finding, severity: 'low' }, 'documentation: code shown in text, which nothing runs and no one is told to run');
}

function withNote(finding: RawFinding, why: string): RawFinding {
  return { ...finding, note: finding.note ? `${finding.note}; ${why}` : why };
}

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
