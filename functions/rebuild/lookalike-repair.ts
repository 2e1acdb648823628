import { visibilityOf } from '#core/policy';
import { IMITATION_MIN_INSTALLS, imitationKeys } from '#core/slug-imitation';
import type { Db } from '../store/db.ts';
import { indexLookalikes } from '../store/lookalikes.ts';
import type { ScannedTable } from './scan.ts';
import { eachSkill, type SkillFailure } from './skill-failure.ts';

/**
 * The full rebuild's repair of the lookalike index (store/lookalikes.ts): every skill with at
 * least 100 distinct installs is listed under each of its slug's and display name's keys. The install counter adds a skill
 * when it crosses the threshold; this adds what that missed (a failed write, installs counted
 * before the index existed). Only missing entries are written, so a run over an index in order
 * writes nothing. Gives the skills it could not index.
 */
export async function repairLookalikeIndex(db: Db, scanned: ScannedTable): Promise<SkillFailure[]> {
  const missing = scanned.states.flatMap(({ skill }) => {
    if (visibilityOf(skill) === 'private' || (scanned.installs.get(skill.id) ?? 0) < IMITATION_MIN_INSTALLS) return [];
    const keys = imitationKeys(skill.slug, skill.name).filter((key) => !scanned.lookalikes.get(key)?.has(skill.id));
    return keys.length > 0 ? [{ skill, keys }] : [];
  });
  const { failed } = await eachSkill(
    missing,
    8,
    ({ skill }) => ({ skillId: skill.id, slug: skill.slug }),
    ({ skill, keys }) => indexLookalikes(db, skill, keys),
  );
  return failed;
}
