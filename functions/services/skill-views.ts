import { publicSkill } from '#core/registry-document';
import type { OwnSkill, Skill } from '#core/schemas';
import type { Deps } from '../platform/composition.ts';
import { listSkillsByAuthor, type SkillItem } from '../store/skills.ts';

/**
 * A stored skill as the API answers it. Apart from publishing.ts, whose scanner and Agent Skills
 * check are chunks loaded on first use: a module that imports another's dynamic `import()` ships
 * its chunk (esbuild splits on every one it sees), so the Lambdas that only read skills (sign-in's
 * /api/me/skills, organisations, pricing) would deploy the 2.3 MB scanner and never run it.
 */

/** An author's skills, newest first (the index holds them oldest first), with their quarantine when they have one. */
export async function skillsBy({ db }: Pick<Deps, 'db'>, authorId: string): Promise<OwnSkill[]> {
  return (await listSkillsByAuthor(db, authorId)).reverse().map(toOwnSkill);
}

/** A skill as its owning side sees it: with its quarantine, when it has one. */
export function toOwnSkill(item: SkillItem): OwnSkill {
  return { ...toSkill(item), ...(item.quarantine ? { quarantine: { reason: item.quarantine.reason, since: item.quarantine.since } } : {}) };
}

/** A skill as anyone may see it: the public listing with its current version and dates. */
export function toSkill(item: SkillItem): Skill {
  return {
    ...publicSkill(item),
    currentVersion: item.currentVersion,
    formats: item.formats,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  };
}
