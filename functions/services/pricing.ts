import { DomainError, invalidRequest, notFound } from '#core/errors';
import { decide, ownerOf, skillResource, visibilityOf } from '#core/policy';
import type { Skill, SkillUpdateBody } from '#core/schemas';
import type { Deps } from '../platform/composition.ts';
import { listVersions, makePublic, setSkillPrice, type SkillItem, skillsOfSlugs } from '../store/skills.ts';
import { record, recordOnSkill } from './audit.ts';
import { missingSkill, type Principal, refuse, skillFor } from './authorization.ts';
import { toSkill } from './skill-views.ts';

/**
 * What may change about a skill after publishing (docs/api.md §7.4): a paid skill's price (a skill
 * without a price is listed but cannot be bought; `null` takes it off sale), and a private
 * skill's visibility, to public (never back: old installs must never break). The registry
 * document and the catalog show the change after the rebuild it triggers. Both are asked of the
 * policy before either is made.
 */
export async function updateSkill(
  deps: Pick<Deps, 'db' | 'clock' | 'changed' | 'config' | 'log'>,
  principal: Principal,
  skillId: string,
  body: SkillUpdateBody,
): Promise<Skill> {
  const action = body.price !== undefined ? 'skill.set_price' : 'skill.set_visibility';
  const { skill, caller } = await skillFor(deps, principal, skillId, action);
  if (body.price !== undefined && body.visibility !== undefined) refuse(decide(caller, 'skill.set_visibility', skillResource(skill)), missingSkill(skillId));
  if (body.price !== undefined && body.price !== null && !skill.paid) {
    throw invalidRequest(`${skill.slug} is free: only a paid skill has a price`, { issues: [{ path: ['price'], message: 'the skill is free' }] });
  }
  const from = visibilityOf(skill);
  if (body.visibility === 'private' && from === 'public') {
    throw new DomainError('visibility_locked', `${skill.slug} is public, and a public skill never becomes private: installs of it must keep working`);
  }
  let updated: SkillItem | undefined = skill;
  if (body.visibility === 'public' && from === 'private') {
    await refusePrivateDependencies(deps, skill);
    // Undefined: made public by a request that got there first; it is public either way.
    updated = (await makePublic(deps.db, skill.id, deps.clock())) ?? skill;
    const owner = ownerOf(skill);
    if (owner.type === 'org') await record(deps, owner.login, principal, 'skill.visibility_changed', skill.slug, { from, to: 'public' });
  }
  if (body.price !== undefined) {
    updated = await setSkillPrice(deps.db, skill.id, body.price ?? undefined, deps.clock());
    await recordOnSkill(deps, skill, principal, 'skill.price_changed', { from: skill.price ?? null, to: updated?.price ?? null });
  }
  if (!updated) throw notFound(missingSkill(skillId));
  deps.changed([skill.id]);
  return toSkill(updated);
}

/**
 * A skill made public has every version's dependencies in static files (its registry document, the
 * `SKILL.md` of its bundles), so none of them may name a skill that is still private: 409
 * `private_dependency`, naming them (they are the caller's organisation's own slugs, in its own
 * skill). Making them public first lets it follow.
 */
async function refusePrivateDependencies(deps: Pick<Deps, 'db'>, skill: SkillItem): Promise<void> {
  const slugs = new Set((await listVersions(deps.db, skill.id)).flatMap((version) => Object.keys(version.dependencies ?? {})));
  const hidden = (await skillsOfSlugs(deps.db, [...slugs])).filter((dependency) => visibilityOf(dependency) === 'private').map((d) => d.slug);
  if (hidden.length === 0) return;
  throw new DomainError(
    'private_dependency',
    `${skill.slug} depends on private skills (${hidden.join(', ')}); make them public first, or their slugs would be published with it`,
    { dependencies: hidden.sort() },
  );
}
