import type { SessionStanding, TokenEntitlement } from '#core/paid-access';
import type { Db } from '../store/db.ts';
import { hasGrant } from '../store/grants.ts';
import { hasPurchase } from '../store/purchases.ts';
import type { SkillItem } from '../store/skills.ts';

/**
 * How a user stands towards a paid skill (docs/api.md §9): its author, granted access by the
 * author, a buyer whose purchase was not refunded, or none of these. Delivery, checkout and
 * download tokens all ask the same question; the grant and the purchase are read together.
 */
export async function standingOf(db: Db, skill: Pick<SkillItem, 'id' | 'authorId'>, userId: string): Promise<SessionStanding> {
  if (userId === skill.authorId) return 'author';
  const [granted, purchased] = await Promise.all([hasGrant(db, skill.id, userId), hasPurchase(db, skill.id, userId)]);
  if (granted) return 'granted';
  return purchased ? 'purchased' : 'other';
}

/** Whether the grant or purchase a download token was minted from still stands. */
export function entitlementHolds(db: Db, skillId: string, entitlement: TokenEntitlement): Promise<boolean> {
  return entitlement.via === 'grant' ? hasGrant(db, skillId, entitlement.userId) : hasPurchase(db, skillId, entitlement.userId);
}
