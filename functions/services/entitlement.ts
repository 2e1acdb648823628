import type { SessionStanding, TokenEntitlement } from '#core/paid-access';
import { decide, SESSION, skillResource } from '#core/policy';
import type { User } from '#core/schemas';
import type { Deps } from '../platform/composition.ts';
import { hasGrant } from '../store/grants.ts';
import { hasPurchase } from '../store/purchases.ts';
import { getSkill, type SkillItem } from '../store/skills.ts';
import { callerFor, orgsToRead, verdictOn } from './authorization.ts';

/**
 * How a user stands towards a paid skill (docs/api.md §9): its owning side (the policy says who:
 * the author, or the organisation's owners, with its other members entitled too), granted
 * access, a buyer whose purchase was not refunded, or none of these. Delivery, checkout and
 * download tokens all ask the same question; the grant and the purchase are read together.
 */
export async function standingOf(deps: Pick<Deps, 'db' | 'config'>, skill: SkillItem, user: User): Promise<SessionStanding> {
  const caller = await callerFor(deps, { user, credential: SESSION }, orgsToRead(skill));
  const resource = skillResource(skill);
  if (decide(caller, 'skill.manage_access', resource).allowed) return 'author';
  if (decide(caller, 'skill.use_unpaid', resource).allowed) return 'member';
  const [granted, purchased] = await Promise.all([hasGrant(deps.db, skill.id, user.id), hasPurchase(deps.db, skill.id, user.id)]);
  if (granted) return 'granted';
  return purchased ? 'purchased' : 'other';
}

/** Whether the grant, purchase or membership a download token was minted from still stands. */
export async function entitlementHolds(deps: Pick<Deps, 'db' | 'config'>, skillId: string, entitlement: TokenEntitlement): Promise<boolean> {
  if (entitlement.via === 'grant') return hasGrant(deps.db, skillId, entitlement.userId);
  if (entitlement.via === 'purchase') return hasPurchase(deps.db, skillId, entitlement.userId);
  const skill = await getSkill(deps.db, skillId);
  if (!skill) return false;
  // Only the membership counts here: the login (which the policy reads for admins) is not needed.
  const member = { user: { id: entitlement.userId, login: '' }, credential: SESSION };
  return (await verdictOn(deps, member, skill, 'skill.use_unpaid')).allowed;
}
