import { ownerOf } from '#core/policy';
import { currentVersionOf } from '#core/registry-document';
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
 * The versions are the truth for `currentVersion` (the highest release not yanked); META caches
 * it. A publish that crashed after storing its version but before moving META, or a yank that
 * crashed after marking its version, is repaired here.
 */
export async function repairCurrentVersion(db: Db, state: SkillState): Promise<SkillState> {
  const current = currentVersionOf(state.versions);
  if (current && current !== state.skill.currentVersion) {
    await setCurrentVersion(db, state.skill.id, state.skill.currentVersion, current);
    return { ...state, skill: { ...state.skill, currentVersion: current } };
  }
  return state;
}
