import { invalidRequest, notFound } from '#core/errors';
import { currentVersionOf } from '#core/registry-document';
import type { Skill, User } from '#core/schemas';
import { assertStrictVersion } from '#core/semver-order';
import type { Deps } from '../platform/composition.ts';
import { getSkillAndVersion, listVersions, lowerCurrentVersion, recordPublished, setYanked, touchSkill } from '../store/skills.ts';
import { assertAuthor, authoredSkill } from './authorship.ts';
import { toSkill } from './publishing.ts';

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

/**
 * Yanks `version` (again: the reason is replaced), or with `yank` undefined undoes it. Yanking the
 * current version makes the highest remaining release current; yanking the last release that is
 * not yanked is refused, as a skill always has a current version. Undoing a yank makes the
 * version current again when it is the highest release.
 */
export async function setVersionYanked(
  deps: Deps,
  author: User,
  skillId: string,
  rawVersion: string,
  yank: { reason?: string } | undefined,
): Promise<VersionLifecycle> {
  const { db, clock } = deps;
  const version = assertStrictVersion(rawVersion);
  const found = await getSkillAndVersion(db, skillId, version);
  const skill = assertAuthor(found.skill, skillId, author, yank ? 'yank its versions' : 'undo a yank');
  if (!found.version) throw notFound(`${skill.slug} has no version ${version}`);

  let currentVersion = skill.currentVersion;
  if (yank) {
    const rest = (await listVersions(db, skillId)).filter((v) => v.version !== version);
    const next = currentVersionOf(rest);
    if (next === undefined) {
      throw invalidRequest(
        `${version} is the only release of ${skill.slug} that is not yanked, and a skill always has a current version: publish a fixed version first, or deprecate the skill`,
        { issues: [{ path: ['version'], message: 'the last release that is not yanked' }] },
      );
    }
    const item = await setYanked(db, skillId, version, yank);
    if (!item) throw notFound(`${skill.slug} has no version ${version}`);
    const updated =
      version === skill.currentVersion ? await lowerCurrentVersion(db, skillId, version, next, clock()) : await touchSkill(db, skillId, {}, clock());
    currentVersion = updated.currentVersion;
  } else {
    const item = await setYanked(db, skillId, version, undefined);
    if (!item) throw notFound(`${skill.slug} has no version ${version}`);
    // Moves the current version up when this one outranks it, and bumps updatedAt either way.
    currentVersion = (await recordPublished(db, skillId, version, clock())).currentVersion;
  }
  deps.changed([skillId]);
  return { skillId, version, yanked: yank !== undefined, ...(yank?.reason === undefined ? {} : { yankReason: yank.reason }), currentVersion };
}

/** Deprecates a skill with `message` (again: the message is replaced), or with `message` null undoes it. */
export async function setSkillDeprecated(deps: Deps, author: User, skillId: string, message: string | null): Promise<Skill> {
  await authoredSkill(deps.db, skillId, author, message === null ? 'undo its deprecation' : 'deprecate it');
  const updated = await touchSkill(deps.db, skillId, { deprecated: message }, deps.clock());
  deps.changed([skillId]);
  return toSkill(updated);
}
