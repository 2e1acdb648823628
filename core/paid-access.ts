import { DomainError, unauthenticated } from './errors.ts';

/**
 * Who may receive a skill's content (docs/api.md §9.3). Free skills: anyone. Paid skills:
 * the session of the author, of a granted user or of a buyer, or a download token for this skill.
 *
 * The 401/402 rule: 402 `payment_required` means "this content needs an entitlement you have
 * not shown" — no token, and no session or a session without access. 401 `unauthenticated`
 * means "the credential you presented is broken": a `?token=` that is unknown, revoked,
 * expired, used up or bound to another skill. The client can act on the difference: 402 asks
 * for a token, 401 says the one it holds is no good. A token a buyer or a granted user minted
 * for themselves stands for their entitlement: once that is refunded or revoked, the token is
 * refused with 402, like the buyer's session, since what they need is to pay again.
 */

/** What a stored download token records, as far as access is concerned. */
export interface TokenFacts {
  skillId: string;
  /** Epoch seconds; the token is dead from this instant on. */
  expiresAt: number;
  /** Null when the token may be used any number of times before it expires. */
  maxUses: number | null;
  uses: number;
}

/**
 * The entitlement a download token was minted from, when an entitled user (not the author)
 * minted it for themselves: the token opens the skill only while that entitlement stands.
 */
export interface TokenEntitlement {
  userId: string;
  /** `member`: a member of the organisation that owns the skill, other than its owners. */
  via: 'grant' | 'purchase' | 'member';
}

/** Why a presented token does not open this skill; unknown also covers revoked (deleted). */
export type TokenProblem = 'unknown' | 'other_skill' | 'expired' | 'used_up';

/** Classifies a presented token for `skillId` at `now`: undefined when it is good. */
export function tokenProblem(token: TokenFacts | undefined, skillId: string, now: Date): TokenProblem | undefined {
  if (!token) return 'unknown';
  if (token.skillId !== skillId) return 'other_skill';
  // Checked here and not left to the TTL, which deletes expired items lazily (docs/architecture.md, "Data model").
  if (token.expiresAt * 1000 <= now.getTime()) return 'expired';
  if (token.maxUses !== null && token.uses >= token.maxUses) return 'used_up';
  return undefined;
}

const tokenMessages: Record<TokenProblem, string> = {
  unknown: 'The download token is not valid: it is unknown or was revoked',
  other_skill: 'The download token was issued for another skill',
  expired: 'The download token has expired; ask the author for a new one',
  used_up: 'The download token has no uses left; ask the author for a new one',
};

/** The 401 for a presented token that does not open the skill. */
export function tokenRejected(problem: TokenProblem): DomainError {
  return unauthenticated(tokenMessages[problem]);
}

/**
 * How the caller relates to the skill through its session, when it has one: `author` is its
 * owning side with every right (the author of a user-owned skill, an owner of the organisation
 * that owns it), `member` any other member of that organisation (core/policy.ts decides both).
 */
export type SessionStanding = 'author' | 'member' | 'granted' | 'purchased' | 'other';

export interface AccessFacts {
  paid: boolean;
  /** Undefined without a live session. */
  session?: SessionStanding;
  /**
   * Undefined without `?token=`; 'valid', the reason it is refused, or 'withdrawn' for a token
   * minted from a grant or a purchase that has since been revoked or refunded.
   */
  token?: 'valid' | TokenProblem | 'withdrawn';
}

/** How a delivery was allowed: a token delivery must spend one of the token's uses. */
export type AccessRoute = 'free' | 'author' | 'member' | 'grant' | 'purchase' | 'token';

/** The 402 for a caller whose access was taken back: a refunded purchase or a revoked grant. */
export function accessWithdrawn(): DomainError {
  return new DomainError(
    'payment_required',
    'Your access to this skill was withdrawn (the purchase was refunded or the grant revoked); buy it again to install it',
  );
}

/**
 * Decides whether content may be delivered. An entitled session wins over a token, so an author
 * testing their own skill never spends a customer's token use. Throws 401 or 402 (see above).
 */
export function decideAccess(facts: AccessFacts): AccessRoute {
  if (!facts.paid) return 'free';
  if (facts.session === 'author') return 'author';
  if (facts.session === 'member') return 'member';
  if (facts.session === 'granted') return 'grant';
  if (facts.session === 'purchased') return 'purchase';
  if (facts.token === 'valid') return 'token';
  // The token was good, but what it stood for is gone: pay again, not "fix your token".
  if (facts.token === 'withdrawn') throw accessWithdrawn();
  if (facts.token !== undefined) throw tokenRejected(facts.token);
  throw new DomainError(
    'payment_required',
    facts.session === 'other'
      ? 'This skill is paid and your account has no access; buy it, or pass a download token from the author as ?token='
      : 'This skill is paid; pass a download token as ?token= or sign in with an account that has access',
  );
}
