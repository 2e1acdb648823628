import { invalidRequest, notFound } from '#core/errors';
import { ownerOf, sameLogin } from '#core/policy';
import type { Skill } from '#core/schemas';
import type { Deps } from '../platform/composition.ts';
import { countSkill, getOrg } from '../store/orgs.ts';
import { setOwner } from '../store/skills.ts';
import { record } from './audit.ts';
import { allow, type Principal, rolesIn, skillFor } from './authorization.ts';
import { toSkill } from './skill-views.ts';

/**
 * Transfers (docs/api.md §7.4): a skill moves from its author into an organisation the author
 * maintains or owns, or from one organisation into another whose owners the caller is one of (of
 * both). The slug, the versions, the installs and every install out there stay as they are; the
 * registry, the catalog and the site name the new owner after the rebuild the write sets off.
 * Both organisations' audit logs record it.
 */
export async function transferSkill(
  deps: Pick<Deps, 'db' | 'clock' | 'changed' | 'config' | 'log'>,
  principal: Principal,
  skillId: string,
  to: string,
): Promise<Skill> {
  const { db, clock } = deps;
  const { skill } = await skillFor(deps, principal, skillId, 'skill.transfer');
  const from = ownerOf(skill);
  const org = await getOrg(db, to);
  if (!org) throw notFound(`No organisation ${to}: a skill moves only into an organisation`);
  if (from.type === 'org' && sameLogin(from.login, org.login)) {
    throw invalidRequest(`${org.login} already owns ${skill.slug}`, { issues: [{ path: ['to'], message: 'already the owner' }] });
  }
  await allow(
    deps,
    principal,
    from.type === 'user' ? 'org.receive_from_user' : 'org.receive_from_org',
    { kind: 'org', login: org.login },
    rolesIn(org, principal.user.id),
  );

  const target = { type: 'org' as const, login: org.login };
  if (!(await countSkill(db, org.login, 1))) throw notFound(`No organisation ${to}: a skill moves only into an organisation`);
  const moved = await setOwner(db, skill, from, target, clock());
  if (!moved) {
    await countSkill(db, org.login, -1);
    throw invalidRequest(`${skill.slug} changed owner while this transfer was under way; look again and retry`);
  }
  if (from.type === 'org') await countSkill(db, from.login, -1);
  deps.changed([skill.id]);
  const details = { from: from.login, to: org.login };
  if (from.type === 'org') await record(deps, from.login, principal, 'skill.transferred', skill.slug, details);
  await record(deps, org.login, principal, 'skill.transferred', skill.slug, details);
  return toSkill(moved);
}
