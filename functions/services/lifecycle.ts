import { invalidRequest, notFound, RateLimitedError } from '#core/errors';
import { currentVersionOf } from '#core/registry-document';
import type { Skill } from '#core/schemas';
import { assertStrictVersion, isRelease } from '#core/semver-order';
import type { Deps } from '../platform/composition.ts';
import {
  getSkillWithVersions,
  recordPublished,
  type SkillItem,
  setYanked,
  touchSkill,
  untrackedYanks,
  unyankRelease,
  type VersionItem,
  yankRelease,
} from '../store/skills.ts';
import { ownerOf } from '#core/policy';
import { record } from './audit.ts';
import { allowSkill, type Principal, skillFor } from './authorization.ts';
import { toSkill } from './skill-views.ts';

/**
 * How authors correct the record (docs/api.md §7.5): yanking a version (it stays deliverable by
 * exact version, so old lockfiles keep working, but is never current and never chosen by a range)
 * and deprecating a skill. Each change is a write to the skill's partition, so the static files
 * follow on the same rebuild path as a publish.
 */

export interface VersionLifecycle {
  skillId: string;
  version: string;
  yanked: boolean;
  yankReason?: string;
  currentVersion: string;
}

/** Reads of the skill a yank may take when others keep changing it at the same time. */
const ATTEMPTS = 8;

/**
 * Yanks `version` (again: the reason is replaced), or with `yank` undefined undoes it. Yanking the
 * current version makes the highest remaining release current; yanking the last release that is
 * not yanked is refused, as a skill always has a current version. Undoing a yank makes the
 * version current again when it is the highest release.
 *
 * Whether a release is yanked is decided by one conditional write of the skill's META
 * (store/skills.ts {@link yankRelease}), so of concurrent yanks that would leave no release, all
 * but one are refused; the version item's flag and reason are written after it. A write whose
 * condition failed (the skill changed in between) reads the skill again and decides again.
 */
export async function setVersionYanked(
  deps: Deps,
  principal: Principal,
  skillId: string,
  rawVersion: string,
  yank: { reason?: string } | undefined,
): Promise<VersionLifecycle> {
  const version = assertStrictVersion(rawVersion);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const read = await getSkillWithVersions(deps.db, skillId);
    const { skill } = await allowSkill(deps, principal, read.skill, skillId, 'skill.yank');
    if (!read.versions.some((v) => v.version === version)) throw notFound(`${skill.slug} has no version ${version}`);
    const updated = yank ? await yankVersion(deps, skill, read.versions, version, yank) : await unyankVersion(deps, skill, read.versions, version);
    if (!updated) {
      // Someone else's change went first: let the others settle before reading again.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (attempt + 1)));
      continue;
    }
    deps.changed([skillId]);
    const owner = ownerOf(skill);
    if (owner.type === 'org') {
      await record(deps, owner.login, principal, yank ? 'version.yanked' : 'version.unyanked', `${skill.slug}@${version}`, {
        version,
        ...(yank?.reason === undefined ? {} : { reason: yank.reason }),
      });
    }
    return {
      skillId,
      version,
      yanked: yank !== undefined,
      ...(yank?.reason === undefined ? {} : { yankReason: yank.reason }),
      currentVersion: updated.currentVersion,
    };
  }
  // Others kept changing this skill's versions: ask the client to come back shortly.
  throw new RateLimitedError(1, `Other requests are changing the versions of this skill right now; retry in 1 s`);
}

/** The skill after yanking `version`, or undefined when it changed since it was read. */
async function yankVersion(deps: Deps, skill: SkillItem, versions: VersionItem[], version: string, yank: { reason?: string }): Promise<SkillItem | undefined> {
  const { db, clock } = deps;
  if (isRelease(version)) {
    const next = currentVersionOf(versions.filter((v) => v.version !== version));
    if (next === undefined) {
      throw invalidRequest(
        `${version} is the only release of ${skill.slug} that is not yanked, and a skill always has a current version: publish a fixed version first, or deprecate the skill`,
        { issues: [{ path: ['version'], message: 'the last release that is not yanked' }] },
      );
    }
    const updated = await yankRelease(db, skill, { version, untracked: untrackedYanks(skill, versions), next }, clock());
    if (!updated) return undefined;
    await setYanked(db, skill.id, version, yank);
    return updated;
  }
  // A prerelease is never current: its own flag is all there is to it.
  await setYanked(db, skill.id, version, yank);
  return touchSkill(db, skill.id, {}, clock());
}

/** The skill after undoing the yank of `version`, or undefined when it changed since it was read. */
async function unyankVersion(deps: Deps, skill: SkillItem, versions: VersionItem[], version: string): Promise<SkillItem | undefined> {
  const { db, clock } = deps;
  const item = versions.find((v) => v.version === version)!;
  // The item's copy first: a crash before META's write leaves the version yanked, as it was.
  if (item.yanked) await setYanked(db, skill.id, version, undefined);
  if (!isRelease(version)) return touchSkill(db, skill.id, {}, clock());
  if (!item.yanked) return recordPublished(db, skill.id, version, clock());
  return unyankRelease(db, skill, { version, untracked: untrackedYanks(skill, versions) }, clock());
}

/** Deprecates a skill with `message` (again: the message is replaced), or with `message` null undoes it. */
export async function setSkillDeprecated(deps: Deps, principal: Principal, skillId: string, message: string | null): Promise<Skill> {
  const { skill } = await skillFor(deps, principal, skillId, 'skill.deprecate');
  const updated = await touchSkill(deps.db, skillId, { deprecated: message }, deps.clock());
  deps.changed([skillId]);
  const owner = ownerOf(skill);
  if (owner.type === 'org') await record(deps, owner.login, principal, 'skill.deprecated', skill.slug, { message });
  return toSkill(updated);
}
