import { describeEvidence, type Effects, type Evidence, type ObservedEvidence, type WriteClass } from '../effects/effect.ts';
import type { Verdict } from '../scan/finding.ts';
import { SENSITIVE_ROWS } from '../effects/sensitive-classes.ts';

/**
 * The verdict on what a version did, one policy in one place, resting only on evidence:
 * - a honeytoken, or any encoding of it, in any byte sent: `malicious`;
 * - downloaded or decoded content executed: `malicious`;
 * - a write to the agent's configuration, developer tools' configuration, system persistence or
 *   a privilege grant: `suspicious` at least, `malicious` when the version also talked to any
 *   host (a package manager's own registry aside);
 * - a privilege grant written into a file of this machine (a key authorised to log in): `malicious`
 *   alone, for the grantee reaches in and needs no call home (a grant through a cloud's or
 *   cluster's command never takes effect in the sandbox, and is judged as the writes above);
 * - a package install from a host that is not its ecosystem's registry: `suspicious` (the
 *   host's owner chooses what is installed, and its content is not in the version);
 * - a run that outgrew what the trace can hold: `suspicious`, for what it did past that point
 *   was not seen.
 * Each block names its evidence: the event the trace or the network sink recorded.
 */

export type BlockRule =
  | 'honeytoken-sent'
  | 'downloaded-code-run'
  | 'decoded-code-run'
  | 'foreign-index'
  | 'persistence'
  | 'persistence-and-network'
  | 'access-granted'
  | 'unobserved';

export interface Block {
  verdict: Exclude<Verdict, 'clean'>;
  rule: BlockRule;
  /** What was done, in a sentence, with the event it rests on. */
  message: string;
  evidence: Evidence;
}

export interface BehaviourVerdict {
  verdict: Verdict;
  evidence: Block[];
}

/** The write classes whose effects outlast the run or reach beyond the project. */
export const PERSISTENT_WRITES: readonly WriteClass[] = ['agent-config', 'developer-tools', 'system-persistence', 'privilege-grant'];

/** The budgets whose hit leaves part of a run unseen. */
const BLINDING_BUDGETS = new Set(['trace']);

/** Whether a grant took effect on this machine: its row is a file of it, not a cloud's or cluster's command. */
function grantedHere(w: Effects['writes'][number]): boolean {
  const row = SENSITIVE_ROWS.find((r) => r.id === w.row);
  return row !== undefined && 'path' in row.match;
}

/** The verdict on a version's effects, and the blocks it rests on (the worst first). */
export function judgeBehaviour(effects: Effects, budgetsHit: ReadonlyArray<{ budget: string; clock?: ObservedEvidence['clock'] }> = []): BehaviourVerdict {
  const blocks: Block[] = [];
  for (const n of effects.network) {
    for (const hit of n.sent?.honeytokens ?? []) {
      const how = hit.encoding.length ? ` (${hit.encoding.join(' in ')})` : '';
      blocks.push({
        verdict: 'malicious',
        rule: 'honeytoken-sent',
        message: `sent the planted ${hit.token}${how} to ${n.host}: ${describeEvidence(n.evidence)}`,
        evidence: n.evidence,
      });
    }
  }
  for (const e of effects.executes) {
    if (e.class !== 'downloaded-content' && e.class !== 'decoded-content') continue;
    const rule = e.class === 'downloaded-content' ? 'downloaded-code-run' : 'decoded-code-run';
    const what = e.class === 'downloaded-content' ? `ran what it downloaded from ${e.target}` : 'ran what a decoder produced';
    blocks.push({ verdict: 'malicious', rule, message: `${what}: ${describeEvidence(e.evidence)}`, evidence: e.evidence });
  }
  for (const e of effects.executes.filter((x) => x.class === 'foreign-index')) {
    blocks.push({
      verdict: 'suspicious',
      rule: 'foreign-index',
      message: `installed packages from ${e.target}: ${describeEvidence(e.evidence)}`,
      evidence: e.evidence,
    });
  }
  const talkedTo = effects.network.find((n) => n.class !== 'package-registry');
  for (const w of effects.writes) {
    if (!PERSISTENT_WRITES.includes(w.class)) continue;
    const message = `wrote ${w.target} (${w.class}: ${w.reason})`;
    if (w.class === 'privilege-grant' && grantedHere(w)) {
      blocks.push({ verdict: 'malicious', rule: 'access-granted', message: `${message}: ${describeEvidence(w.evidence)}`, evidence: w.evidence });
      continue;
    }
    blocks.push(
      talkedTo
        ? {
            verdict: 'malicious',
            rule: 'persistence-and-network',
            message: `${message} and talked to ${talkedTo.host}: ${describeEvidence(w.evidence)}; ${describeEvidence(talkedTo.evidence)}`,
            evidence: w.evidence,
          }
        : { verdict: 'suspicious', rule: 'persistence', message: `${message}: ${describeEvidence(w.evidence)}`, evidence: w.evidence },
    );
  }
  for (const hit of budgetsHit.filter((b) => BLINDING_BUDGETS.has(b.budget))) {
    blocks.push({
      verdict: 'suspicious',
      rule: 'unobserved',
      message: `made more events than the sandbox's ${hit.budget} budget holds, so what it did after was not seen`,
      evidence: { step: 'the run', event: `the ${hit.budget} budget was reached`, clock: hit.clock ?? 'now' },
    });
  }
  blocks.sort((a, b) => (a.verdict === b.verdict ? 0 : a.verdict === 'malicious' ? -1 : 1));
  const verdict: Verdict = blocks[0]?.verdict ?? 'clean';
  return { verdict, evidence: blocks };
}
