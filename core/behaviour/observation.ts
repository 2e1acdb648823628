import type { Effects, ObservedEvidence } from '../effects/effect.ts';
import type { Verdict } from '../scan/finding.ts';
import type { Block } from './judge.ts';

/**
 * What a run of a version in the sandbox found (functions/sandbox/observe.ts makes it): the
 * shape the runner hands back, locally from its child process and on AWS through the observer
 * state machine, and that publishing's behaviour service records.
 */

/** A budget a run reached: which, in which step, on which clock. */
export interface BudgetHit {
  budget: 'step-time' | 'output' | 'disk' | 'processes' | 'version-time' | 'pass-time' | 'trace';
  step?: string;
  clock: ObservedEvidence['clock'];
}

/** How one step of the plan ended, on one clock. */
export interface StepOutcome {
  name: string;
  clock: ObservedEvidence['clock'];
  exit: number | null;
  timedOut: boolean;
  seconds: number;
}

export interface Observation {
  effects: Effects;
  /** The verdict on what the version did (`core/behaviour/judge.ts`), and the blocks it rests on, each with its event. */
  verdict: Verdict;
  evidence: Block[];
  budgetsHit: BudgetHit[];
  steps: StepOutcome[];
}
