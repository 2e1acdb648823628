import * as z from 'zod/mini';
import { effectsSchema } from './effects/effects-schema.ts';
import { lazySchema } from './lazy-schema.ts';
import type { Verdict } from './scan/finding.ts';
import { VERDICTS } from './scan/finding.ts';
import { currentOf } from './semver-order.ts';

/**
 * A version's behaviour (docs/scanning.md, "Behaviour"): whether the sandbox has seen what it
 * does when run. A version with runnable content is `pending` from its publish until its run ends,
 * then `cleared` or `refused`; one with nothing to run is `cleared` at once. Versions stored before
 * observation carry none and are read as `cleared`. Pure: the observer (functions/services/
 * behaviour.ts) decides, and every reader of "which version is installed by default" asks here.
 */

export const BEHAVIOURS = ['pending', 'cleared', 'refused'] as const;
export type Behaviour = (typeof BEHAVIOURS)[number];

/** A version's behaviour, `cleared` for versions stored before observation. */
export const behaviourOf = (version: { behaviour?: Behaviour }): Behaviour => version.behaviour ?? 'cleared';

/** What a finished run of a version left on it, beside its behaviour: the verdict and the blocks it rests on, in words. */
export const observationRecordSchema = lazySchema(() =>
  z.strictObject({
    verdict: z.enum(VERDICTS),
    /** One line per block (`core/behaviour/judge.ts`), each naming its evidence; `unobservable` when no run could finish. */
    evidence: z.array(z.strictObject({ rule: z.string(), verdict: z.enum(VERDICTS), message: z.string() })),
    /** When the run ended. */
    at: z.string(),
    /** Runs that could not finish before this one (a crash, the version's time budget). */
    attempts: z.optional(z.int().check(z.minimum(0))),
  }),
);
export type ObservationRecord = z.output<typeof observationRecordSchema>;

/** The fields a stored version carries about its behaviour (absent on versions stored before observation). */
export const behaviourFields = {
  behaviour: lazySchema(() => z.optional(z.enum(BEHAVIOURS))),
  /** What running it does outside its folder: static ∪ observed. */
  effects: lazySchema(() => z.optional(effectsSchema)),
  observation: lazySchema(() => z.optional(observationRecordSchema)),
};

/** A refused version is never current: with a yanked one, it is left out when the current version is chosen. */
export const refused = (version: { behaviour?: Behaviour }): boolean => behaviourOf(version) === 'refused';

/**
 * The version installed when none is named: the highest release that is neither yanked nor
 * anything but `cleared`. Undefined when none is (a new skill whose first version is still
 * being observed).
 */
export function defaultVersionOf(versions: readonly { version: string; yanked?: boolean; behaviour?: Behaviour }[]): string | undefined {
  return currentOf(versions.filter((v) => !v.yanked && behaviourOf(v) === 'cleared').map((v) => v.version));
}

/**
 * What a skill's META records about its default version (store/skills.ts `defaultVersion`):
 * nothing when it is the current version (the usual case), the version when it differs, and
 * null when no version is cleared yet.
 */
export function defaultVersionField(current: string, versions: Parameters<typeof defaultVersionOf>[0]): string | null | undefined {
  const found = defaultVersionOf(versions);
  if (found === current) return undefined;
  return found ?? null;
}

/** The version META names as the default: its current version unless {@link defaultVersionField} says otherwise; null for none yet. */
export const defaultOfSkill = (skill: { currentVersion: string; defaultVersion?: string | null }): string | null =>
  skill.defaultVersion === undefined ? skill.currentVersion : skill.defaultVersion;

/** How a finished run turns into a behaviour: a malicious verdict refuses the version; anything else clears it, effects and all. */
export const behaviourOfVerdict = (verdict: Verdict): Exclude<Behaviour, 'pending'> => (verdict === 'malicious' ? 'refused' : 'cleared');
