import { forbidden, notFound } from '#core/errors';
import type { User } from '#core/schemas';
import { getSkill, type SkillItem } from '../store/skills.ts';
import type { Db } from '../store/db.ts';

/**
 * The skill `skillId` when `user` is its author, for author-only operations (versions, download
 * tokens, grants, analytics): 404 when there is no such skill, 403 when it is someone else's.
 */
export async function authoredSkill(db: Db, skillId: string, user: User, action: string): Promise<SkillItem> {
  return assertAuthor(await getSkill(db, skillId), skillId, user, action);
}

/** {@link authoredSkill} for a skill already read (`skill` undefined: there is none). */
export function assertAuthor(skill: SkillItem | undefined, skillId: string, user: User, action: string): SkillItem {
  if (!skill) throw notFound(`No skill with id ${skillId}`);
  if (skill.authorId !== user.id) throw forbidden(`Only the author of this skill may ${action}`);
  return skill;
}
