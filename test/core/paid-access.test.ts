import { describe, expect, it } from 'vitest';
import { decideAccess, type TokenFacts, tokenProblem } from '#core/paid-access';

const now = new Date('2026-06-15T12:00:00Z');
const seconds = now.getTime() / 1000;
const token = (overrides: Partial<TokenFacts> = {}): TokenFacts => ({ skillId: 's1', expiresAt: seconds + 60, maxUses: null, uses: 0, ...overrides });

describe('tokenProblem', () => {
  it('accepts a live token of this skill', () => {
    expect(tokenProblem(token(), 's1', now)).toBeUndefined();
    expect(tokenProblem(token({ maxUses: 3, uses: 2 }), 's1', now)).toBeUndefined();
  });

  it('names why a token is refused: unknown, another skill, expired, used up', () => {
    expect(tokenProblem(undefined, 's1', now)).toBe('unknown');
    expect(tokenProblem(token({ skillId: 's2' }), 's1', now)).toBe('other_skill');
    expect(tokenProblem(token({ expiresAt: seconds }), 's1', now)).toBe('expired');
    expect(tokenProblem(token({ maxUses: 3, uses: 3 }), 's1', now)).toBe('used_up');
  });
});

describe('decideAccess', () => {
  const code = (fn: () => unknown) => {
    try {
      fn();
      return 'allowed';
    } catch (error) {
      return (error as { code: string }).code;
    }
  };

  it('delivers free skills whatever the credentials', () => {
    expect(decideAccess({ paid: false })).toBe('free');
    expect(decideAccess({ paid: false, token: 'expired', session: 'other' })).toBe('free');
  });

  it('lets the author, granted users and buyers in without spending a token', () => {
    expect(decideAccess({ paid: true, session: 'author', token: 'valid' })).toBe('author');
    expect(decideAccess({ paid: true, session: 'granted', token: 'unknown' })).toBe('grant');
    expect(decideAccess({ paid: true, session: 'purchased', token: 'withdrawn' })).toBe('purchase');
  });

  it('answers 402 for a token whose purchase was refunded or grant revoked, not 401: the holder must pay again', () => {
    expect(code(() => decideAccess({ paid: true, token: 'withdrawn' }))).toBe('payment_required');
    expect(code(() => decideAccess({ paid: true, session: 'other', token: 'withdrawn' }))).toBe('payment_required');
  });

  it('lets a valid token in, whoever is signed in', () => {
    expect(decideAccess({ paid: true, token: 'valid' })).toBe('token');
    expect(decideAccess({ paid: true, session: 'other', token: 'valid' })).toBe('token');
  });

  it('answers 402 payment_required when no token is shown and the session has no access', () => {
    expect(code(() => decideAccess({ paid: true }))).toBe('payment_required');
    expect(code(() => decideAccess({ paid: true, session: 'other' }))).toBe('payment_required');
  });

  it.each(['unknown', 'other_skill', 'expired', 'used_up'] as const)('answers 401 unauthenticated for a %s token', (problem) => {
    expect(code(() => decideAccess({ paid: true, token: problem }))).toBe('unauthenticated');
    expect(code(() => decideAccess({ paid: true, session: 'other', token: problem }))).toBe('unauthenticated');
  });
});
