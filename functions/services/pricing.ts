import { invalidRequest, notFound } from '#core/errors';
import type { Skill, SkillUpdateBody } from '#core/schemas';
import type { Deps } from '../platform/composition.ts';
import { setSkillPrice } from '../store/skills.ts';
import { type Principal, skillFor } from './authorization.ts';
import { toSkill } from './publishing.ts';

/**
 * What an author may change after publishing: a paid skill's price (docs/api.md §7.4). A skill
 * without a price is listed but cannot be bought; `null` takes it off sale. The registry
 * document and the catalog show the new price after the rebuild the change triggers.
 */
export async function updateSkill(
  deps: Pick<Deps, 'db' | 'clock' | 'changed' | 'config'>,
  principal: Principal,
  skillId: string,
  body: SkillUpdateBody,
): Promise<Skill> {
  const { skill } = await skillFor(deps, principal, skillId, 'skill.set_price');
  if (!skill.paid && body.price !== null) {
    throw invalidRequest(`${skill.slug} is free: only a paid skill has a price`, { issues: [{ path: ['price'], message: 'the skill is free' }] });
  }
  const updated = await setSkillPrice(deps.db, skill.id, body.price ?? undefined, deps.clock());
  if (!updated) throw notFound(`No skill with id ${skillId}`);
  deps.changed([skill.id]);
  return toSkill(updated);
}
