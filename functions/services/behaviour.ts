import type { FileBytes } from '#core/bundle';
import { EFFECT_KINDS, type Effects, noEffects } from '#core/effects/effect';
import { EffectList } from '#core/effects/effect-list';
import { unquotedEffects } from '#core/effects/unquoted';
import { currentVersionOf } from '#core/registry-document';
import { notFound } from '#core/errors';
import { assertStrictVersion } from '#core/semver-order';
import { type Behaviour, behaviourOf, behaviourOfVerdict, refused, defaultVersionField, type ObservationRecord } from '#core/version-behaviour';
import type { Deps } from '../platform/composition.ts';
import type { Observation } from '#core/behaviour/observation';
import { countFailedRun, recordBehaviour } from '../store/behaviour.ts';
import { quarantineSkill } from '../store/moderation.ts';
import { getSkillAndVersion, getSkillBySlug, getSkillWithVersions, getVersion, setCurrentVersion } from '../store/skills.ts';
import { allowSkill, type Principal } from './authorization.ts';

/**
 * A version's behaviour (docs/scanning.md, "Behaviour"): a version with runnable content is
 * published `pending` and run in the sandbox by the observer (the `observer` port of Deps: a
 * child process locally, a Step Functions execution on AWS); the run's end, reported here,
 * clears it or refuses it. A refused version is never current nor installed by default, and the
 * skill's current version falls back to the newest cleared one. A run that cannot finish (a
 * crash, the version's time budget) is started once more; a second such run refuses the version
 * as `unobservable`, for an admin to review, rather than leave it pending for ever.
 */

/** Which version to run. */
export interface ObservationRun {
  skillId: string;
  slug: string;
  version: string;
}

/**
 * Starts runs of versions. `start` resolves once the run is started, never once it ended: a
 * publish does not wait for its sandbox. Whatever ends the run reports it through
 * {@link recordObservation} or {@link recordFailedRun}.
 */
export interface Observer {
  start(deps: Deps, run: ObservationRun): Promise<void>;
  /** Ends the runs still going, when the process is closing: their versions stay pending. */
  close?(): Promise<void>;
  /** Resolves once every run that ended so far is recorded, its skill's versions moved (locally: a run's end is recorded in this process). */
  idle?(): Promise<void>;
}

/** Runs that may fail to finish before the version is refused as `unobservable`. */
export const RUNS_BEFORE_UNOBSERVABLE = 2;

/** The budgets whose hit means the run did not finish: the version was not seen whole. */
const UNFINISHED = new Set(['version-time', 'pass-time']);

/**
 * What a version is published as: `pending` when it has anything to run, else `cleared`; with
 * the effects read in its text (`source: "static"`), to which its run adds what it did.
 */
export async function behaviourAtPublish(files: readonly FileBytes[], paid: boolean): Promise<{ behaviour: Behaviour; effects: Effects }> {
  const [{ hasRunnableContent }, { staticEffects }] = await Promise.all([import('#core/behaviour/plan'), import('#core/effects/static-effects')]);
  const effects = staticEffects(files);
  return { behaviour: hasRunnableContent(files) ? 'pending' : 'cleared', effects: paid ? unquotedEffects(effects) : effects };
}

/** The effects a version was published with (read in its text), joined by what its run observed: one of each. */
async function withPublished(deps: Deps, run: ObservationRun, observed: Effects): Promise<Effects> {
  const published = (await getVersion(deps.db, run.skillId, run.version))?.effects ?? noEffects();
  const joined = new EffectList('observed');
  for (const kind of EFFECT_KINDS) for (const effect of [...published[kind], ...observed[kind]]) joined.add(kind, effect);
  return joined.effects;
}

/**
 * Starts the run of a version just published `pending`. A run that cannot even be started
 * counts as one that did not finish.
 */
export async function startObservation(deps: Deps, run: ObservationRun): Promise<void> {
  try {
    await deps.observer.start(deps, run);
  } catch (error) {
    deps.log.error('could not start the observation of a version', { ...run, error: (error as Error).message });
    await recordFailedRun(deps, run, `the run could not be started: ${(error as Error).message}`);
  }
}

/**
 * Records a finished run of `slug@version`: the version's behaviour and effects, then the skill's
 * current and default versions, then the rebuild. A run reported for a version no longer pending
 * (reported twice, or about a version that is gone) changes nothing.
 */
export async function recordObservation(deps: Deps, report: { slug: string; version: string; observation: Observation }): Promise<void> {
  const { slug, version, observation } = report;
  const skill = await getSkillBySlug(deps.db, slug);
  if (!skill) return;
  const run = { skillId: skill.id, slug, version };
  const unfinished = observation.budgetsHit.find((hit) => UNFINISHED.has(hit.budget));
  if (unfinished) {
    await recordFailedRun(deps, run, `the run reached the sandbox's ${unfinished.budget} budget`);
    return;
  }
  const evidence = observation.evidence.map((block) => ({ rule: block.rule, verdict: block.verdict, message: block.message }));
  // A paid skill's effects are recorded as its findings are: what was run is its content.
  const observed = skill.paid ? unquotedEffects(observation.effects) : observation.effects;
  await settle(deps, run, behaviourOfVerdict(observation.verdict), await withPublished(deps, run, observed), {
    verdict: observation.verdict,
    evidence,
    at: deps.clock().toISOString(),
  });
}

/**
 * Records a run that did not finish: the version is run again, until {@link RUNS_BEFORE_UNOBSERVABLE}
 * runs failed; then it is refused as `unobservable`, with `why`.
 */
export async function recordFailedRun(deps: Deps, run: ObservationRun, why: string): Promise<void> {
  const attempts = await countFailedRun(deps.db, run.skillId, run.version);
  if (attempts === undefined) return;
  deps.log.warn('a run of a version did not finish', { ...run, attempts, why });
  if (attempts < RUNS_BEFORE_UNOBSERVABLE) {
    await startObservation(deps, run);
    return;
  }
  await settle(deps, run, 'refused', await withPublished(deps, run, noEffects()), {
    verdict: 'suspicious',
    evidence: [
      { rule: 'unobservable', verdict: 'suspicious', message: `no run of the version finished (${attempts} tried; the last: ${why}); an admin reviews it` },
    ],
    at: deps.clock().toISOString(),
    attempts,
  });
}

/** Writes a run's outcome on the version, then moves the skill's current and default versions, then asks for the rebuild. */
async function settle(
  deps: Deps,
  run: ObservationRun,
  behaviour: Exclude<Behaviour, 'pending'>,
  effects: Effects,
  observation: ObservationRecord,
): Promise<void> {
  deps.log.info('the run of a version is recorded', { ...run, behaviour });
  if (!(await recordBehaviour(deps.db, run.skillId, run.version, { behaviour, effects, observation }))) return;
  const { skill, versions } = await getSkillWithVersions(deps.db, run.skillId);
  if (skill) {
    const current = currentVersionOf(versions) ?? skill.currentVersion;
    const defaultVersion = defaultVersionField(current, versions);
    if (current !== skill.currentVersion || defaultVersion !== skill.defaultVersion) {
      await setCurrentVersion(deps.db, skill.id, skill.currentVersion, current, defaultVersion);
    }
    // Nothing of the skill is left to install: the skill itself is quarantined, for its author to see why and appeal.
    if (behaviour === 'refused' && versions.every(refused) && !skill.quarantine) {
      const why = observation.evidence[0]?.message ?? 'what it did when run';
      await quarantineSkill(deps.db, skill.id, {
        reason: `${run.slug}@${run.version} was refused when run in the sandbox: ${why}`,
        since: observation.at,
        by: 'observation',
      });
    }
  }
  if (behaviour === 'refused') deps.log.warn('a version was refused on what it did when run', { ...run, evidence: observation.evidence.map((e) => e.rule) });
  deps.changed([run.skillId]);
}

/**
 * How a version fared in the sandbox, for those who may publish its versions: its behaviour,
 * effects and, once its run ended, the verdict and evidence (why a refused version was refused).
 */
export async function versionBehaviour(deps: Deps, principal: Principal, skillId: string, rawVersion: string) {
  const version = assertStrictVersion(rawVersion);
  const found = await getSkillAndVersion(deps.db, skillId, version);
  const { skill } = await allowSkill(deps, principal, found.skill, skillId, 'skill.publish_version');
  const item = found.version;
  if (!item) throw notFound(`${skill.slug} has no version ${version}`);
  return {
    skillId,
    version,
    behaviour: behaviourOf(item),
    ...(item.effects ? { effects: item.effects } : {}),
    ...(item.observation ? { observation: item.observation } : {}),
  };
}
