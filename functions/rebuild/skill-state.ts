import { ownerOf } from '#core/policy';
import { currentVersionOf } from '#core/registry-document';
import { defaultOfSkill, defaultVersionField, refused } from '#core/version-behaviour';
import type { Db } from '../store/db.ts';
import { getSkillWithVersions, recordOwner, type SkillItem, setCurrentVersion, type VersionItem } from '../store/skills.ts';

/** A skill with all its versions, and the fingerprints recorded for them, as the rebuild reads them from DynamoDB. */
export interface SkillState {
  skill: SkillItem;
  versions: VersionItem[];
  /** ClawHub fingerprint → the version its item names (store/fingerprints.ts). */
  fingerprints: ReadonlyMap<string, string>;
}

/** Reads one skill; undefined when it has no META (never published, or a publish in flight). */
export async function loadSkillState(db: Db, skillId: string): Promise<SkillState | undefined> {
  const { skill, versions, fingerprints } = await getSkillWithVersions(db, skillId);
  if (!skill || versions.length === 0) return undefined;
  return repairSkill(db, { skill, versions, fingerprints });
}

/** What the rebuild puts right in a skill's META before writing its files: {@link repairCurrentVersion}, {@link migrateOwner}. */
export async function repairSkill(db: Db, state: SkillState): Promise<SkillState> {
  return migrateOwner(db, await repairCurrentVersion(db, state));
}

/**
 * Skills stored before owners were recorded belong to their authors: the rebuild writes that
 * down, once per skill, while every reader already takes a missing owner for the author
 * (core/policy.ts `ownerOf`), so nothing waits for it and nothing changes for readers.
 */
export async function migrateOwner(db: Db, state: SkillState): Promise<SkillState> {
  if (state.skill.owner) return state;
  const owner = ownerOf(state.skill);
  await recordOwner(db, state.skill.id, owner);
  return { ...state, skill: { ...state.skill, owner } };
}

/**
 * The versions are the truth for `currentVersion` (the highest release neither yanked nor
 * refused) and `defaultVersion` (the newest cleared release, when it is not the current one:
 * core/version-behaviour.ts); META caches them. A publish that crashed after storing its version
 * but before moving META, a yank that crashed after marking its version, or a yank of the version
 * installed by default while a newer one is being observed, is repaired here.
 */
export async function repairCurrentVersion(db: Db, state: SkillState): Promise<SkillState> {
  const current = currentVersionOf(state.versions) ?? state.skill.currentVersion;
  const defaultVersion = defaultVersionField(current, state.versions);
  if (current === state.skill.currentVersion && defaultVersion === state.skill.defaultVersion) return state;
  await setCurrentVersion(db, state.skill.id, state.skill.currentVersion, current, defaultVersion);
  const { defaultVersion: _was, ...skill } = state.skill;
  return { ...state, skill: { ...skill, currentVersion: current, ...(defaultVersion === undefined ? {} : { defaultVersion }) } };
}

/**
 * A skill as installs see it, which is what every static file shows (docs/api.md §11.2): its
 * `currentVersion` the version installed by default, the newest cleared one
 * (core/version-behaviour.ts), and its refused versions left out. A skill with nothing installed
 * by default yet (its first version being observed) keeps `defaultVersion: null`: it is listed
 * nowhere, and its registry documents say it is pending.
 */
export function shownState(state: SkillState): SkillState {
  const installed = defaultOfSkill(state.skill);
  return {
    ...state,
    skill: installed === null ? state.skill : { ...state.skill, currentVersion: installed },
    versions: state.versions.filter((v) => !refused(v)),
  };
}

/** Whether nothing of a skill is installed by default yet (see {@link shownState}). */
export const awaitsObservation = (state: SkillState): boolean => state.skill.defaultVersion === null;
