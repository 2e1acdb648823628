import { DomainError, forbidden, invalidRequest, notFound } from '#core/errors';
import { limits } from '#core/limits';
import type { User } from '#core/schemas';
import type { Deps } from '../platform/composition.ts';
import { type CreatedDownloadToken, createDownloadToken, listDownloadTokens, type NewToken, revokeDownloadToken } from '../store/download-tokens.ts';
import { listGrants, putGrant, revokeGrant } from '../store/grants.ts';
import { getSkill } from '../store/skills.ts';
import { findUserByLogin } from '../store/users.ts';
import { authoredSkill } from './authorship.ts';
import { standingOf } from './entitlement.ts';

/**
 * Paid access, managed by the skill's author: download tokens (shown once, stored hashed) and
 * grants to other users' accounts. Every operation but issuing a token first checks that `user`
 * wrote the skill; a token may also be minted by a buyer or a granted user, for themselves.
 */
type AccessPorts = Pick<Deps, 'db' | 'clock'>;

export interface TokenRequest {
  expiresInSeconds?: number;
  maxUses?: number;
}

/**
 * A download token for `skillId`. The author's tokens are theirs to hand to anyone: a day and any
 * number of uses unless they ask otherwise. Anyone else entitled to the paid skill (granted
 * access, or a buyer) gets a token bound to that entitlement, so `skillpress install` works for
 * them and the token dies with a refund or a revoked grant, and bounded (docs/api.md §9.1): ten
 * minutes and one use unless asked, an hour and ten uses at most. Without an entitlement the
 * answer is 402, as delivery's would be.
 */
export async function issueDownloadToken({ db, clock }: AccessPorts, user: User, skillId: string, request: TokenRequest): Promise<CreatedDownloadToken> {
  const skill = await getSkill(db, skillId);
  if (!skill) throw notFound(`No skill with id ${skillId}`);
  const issue = (lifetime: { expiresInSeconds: number; maxUses?: number }, entitlement?: NewToken['entitlement']) =>
    createDownloadToken(db, { skillId: skill.id, createdBy: user.id, ...lifetime, entitlement }, clock());
  if (skill.authorId === user.id) return issue({ expiresInSeconds: request.expiresInSeconds ?? limits.downloadToken.defaultSeconds, maxUses: request.maxUses });
  if (!skill.paid) throw forbidden(`${skill.slug} is free: anyone can install it without a download token`);
  const standing = await standingOf(db, skill, user.id);
  if (standing === 'granted') return issue(entitledLifetime(request), { userId: user.id, via: 'grant' });
  if (standing === 'purchased') return issue(entitledLifetime(request), { userId: user.id, via: 'purchase' });
  throw new DomainError('payment_required', 'Your account has no access to this paid skill; buy it first');
}

/** A buyer's or grantee's token as asked, within their bounds (400 beyond them). */
function entitledLifetime(request: TokenRequest): { expiresInSeconds: number; maxUses: number } {
  const bounds = limits.entitledToken;
  const issues = [
    ...(request.expiresInSeconds !== undefined && request.expiresInSeconds > bounds.maxSeconds
      ? [{ path: ['expiresInSeconds'], message: `at most ${bounds.maxSeconds} for a token of your own purchase or grant` }]
      : []),
    ...(request.maxUses !== undefined && request.maxUses > bounds.maxUses
      ? [{ path: ['maxUses'], message: `at most ${bounds.maxUses} for a token of your own purchase or grant` }]
      : []),
  ];
  if (issues.length > 0) {
    throw invalidRequest(
      `A token for your own purchase or grant lasts at most an hour and ${bounds.maxUses} uses; mint another when you need one (only the author's tokens may last longer)`,
      { issues },
    );
  }
  return { expiresInSeconds: request.expiresInSeconds ?? bounds.defaultSeconds, maxUses: request.maxUses ?? bounds.defaultUses };
}

/** The skill's tokens, newest first, without their secrets (only hashes are stored). */
export async function downloadTokensOf({ db }: AccessPorts, user: User, skillId: string) {
  const skill = await authoredSkill(db, skillId, user, 'list its download tokens');
  const tokens = await listDownloadTokens(db, skill.id);
  tokens.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
  return tokens.map((t) => ({
    id: t.id,
    createdAt: t.createdAt,
    expiresAt: new Date(t.expiresAt * 1000).toISOString(),
    maxUses: t.maxUses,
    uses: t.uses,
    lastUsedAt: t.lastUsedAt,
  }));
}

export async function withdrawDownloadToken({ db }: AccessPorts, user: User, skillId: string, tokenId: string): Promise<void> {
  const skill = await authoredSkill(db, skillId, user, 'revoke its download tokens');
  await revokeDownloadToken(db, skill.id, tokenId);
}

/** Grants `login`'s account access to the skill. Grants name an account, which exists once its owner has signed in. */
export async function grantAccess({ db, clock }: AccessPorts, user: User, skillId: string, login: string) {
  const skill = await authoredSkill(db, skillId, user, 'grant access to it');
  const grantee = await findUserByLogin(db, login);
  if (!grantee) throw notFound(`No user ${login}; they need to sign in once before they can be granted access`);
  const grant = await putGrant(db, { skillId: skill.id, userId: grantee.id, login: grantee.login, grantedBy: user.id, grantedAt: clock().toISOString() });
  return { skillId: grant.skillId, login: grant.login, grantedAt: grant.grantedAt };
}

export async function grantsOf({ db }: AccessPorts, user: User, skillId: string) {
  const skill = await authoredSkill(db, skillId, user, 'list its grants');
  const grants = await listGrants(db, skill.id);
  return grants.map(({ skillId: id, login, grantedAt }) => ({ skillId: id, login, grantedAt }));
}

export async function withdrawGrant({ db }: AccessPorts, user: User, skillId: string, login: string): Promise<void> {
  const skill = await authoredSkill(db, skillId, user, 'revoke its grants');
  await revokeGrant(db, skill.id, login);
}
