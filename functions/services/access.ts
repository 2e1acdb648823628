import { DomainError, forbidden, invalidRequest } from '#core/errors';
import { limits } from '#core/limits';
import { decide, skillResource } from '#core/policy';
import type { Deps } from '../platform/composition.ts';
import { type CreatedDownloadToken, createDownloadToken, listDownloadTokens, type NewToken, revokeDownloadToken } from '../store/download-tokens.ts';
import { listGrants, putGrant, revokeGrant } from '../store/grants.ts';
import { findUserByLogin } from '../store/users.ts';
import { recordOnSkill } from './audit.ts';
import { type Principal, skillFor } from './authorization.ts';
import { standingOf } from './entitlement.ts';

/**
 * Paid access, managed by the skill's owning side (the policy's `skill.manage_access`: its
 * author, or the owners of its organisation): download tokens (shown once, stored hashed) and
 * grants to other users' accounts. A token may also be minted by anyone entitled to the paid
 * skill, for themselves.
 */
type AccessPorts = Pick<Deps, 'db' | 'clock' | 'config' | 'log'>;

export interface TokenRequest {
  expiresInSeconds?: number;
  maxUses?: number;
}

/**
 * A download token for `skillId`. The owning side's tokens are theirs to hand to anyone: a day and
 * any number of uses unless they ask otherwise. Anyone else entitled to the paid skill (another
 * member of its organisation, granted access, or a buyer) gets a token of their own, bound to
 * that entitlement, so `skillpress install` works for them and the token dies with their
 * membership, a refund or a revoked grant, and bounded (docs/api.md §9.1): ten minutes and one
 * use unless asked, an hour and ten uses at most. Without an entitlement the answer is 402, as
 * delivery's would be. Minting a token is a way to read: it takes `read`.
 */
export async function issueDownloadToken(deps: AccessPorts, principal: Principal, skillId: string, request: TokenRequest): Promise<CreatedDownloadToken> {
  const { db, clock } = deps;
  const { skill, caller } = await skillFor(deps, principal, skillId, 'skill.read');
  const issue = async (lifetime: { expiresInSeconds: number; maxUses?: number }, entitlement?: NewToken['entitlement']) => {
    const created = await createDownloadToken(db, { skillId: skill.id, createdBy: principal.user.id, ...lifetime, entitlement }, clock());
    const details = { tokenId: created.id, expiresAt: created.expiresAt, maxUses: created.maxUses ?? null };
    await recordOnSkill(deps, skill, principal, 'download_token.created', entitlement ? { ...details, for: entitlement.via } : details);
    return created;
  };
  const owning = decide(caller, 'skill.manage_access', skillResource(skill));
  if (owning.allowed) return issue({ expiresInSeconds: request.expiresInSeconds ?? limits.downloadToken.defaultSeconds, maxUses: request.maxUses });
  if (!skill.paid) throw forbidden(`${skill.slug} is free: anyone who may install it can do so without a download token`);
  // Beyond the owning side, a token is the caller's own: it needs the scope to read.
  const reading = decide(caller, 'skill.use_unpaid', skillResource(skill));
  if (!reading.allowed && reading.code === 'insufficient_scope') throw new DomainError('insufficient_scope', reading.message, { scope: reading.scope });
  const standing = await standingOf(deps, skill, principal.user);
  const user = principal.user.id;
  // The owning side with a key that may not manage: a token of their own, bound to their standing.
  if (standing === 'author' || standing === 'member') return issue(entitledLifetime(request), { userId: user, via: 'member' });
  if (standing === 'granted') return issue(entitledLifetime(request), { userId: user, via: 'grant' });
  if (standing === 'purchased') return issue(entitledLifetime(request), { userId: user, via: 'purchase' });
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
export async function downloadTokensOf(deps: AccessPorts, principal: Principal, skillId: string) {
  const { skill } = await skillFor(deps, principal, skillId, 'skill.manage_access');
  const tokens = await listDownloadTokens(deps.db, skill.id);
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

export async function withdrawDownloadToken(deps: AccessPorts, principal: Principal, skillId: string, tokenId: string): Promise<void> {
  const { skill } = await skillFor(deps, principal, skillId, 'skill.manage_access');
  await revokeDownloadToken(deps.db, skill.id, tokenId);
  await recordOnSkill(deps, skill, principal, 'download_token.revoked', { tokenId });
}

/** Grants `login`'s account access to the skill. Grants name an account, which exists once its owner has signed in. */
export async function grantAccess(deps: AccessPorts, principal: Principal, skillId: string, login: string) {
  const { skill } = await skillFor(deps, principal, skillId, 'skill.manage_access');
  const grantee = await findUserByLogin(deps.db, login);
  if (!grantee) throw new DomainError('not_found', `No user ${login}; they need to sign in once before they can be granted access`);
  const grant = await putGrant(deps.db, {
    skillId: skill.id,
    userId: grantee.id,
    login: grantee.login,
    grantedBy: principal.user.id,
    grantedAt: deps.clock().toISOString(),
  });
  await recordOnSkill(deps, skill, principal, 'grant.created', { login: grant.login });
  return { skillId: grant.skillId, login: grant.login, grantedAt: grant.grantedAt };
}

export async function grantsOf(deps: AccessPorts, principal: Principal, skillId: string) {
  const { skill } = await skillFor(deps, principal, skillId, 'skill.manage_access');
  const grants = await listGrants(deps.db, skill.id);
  return grants.map(({ skillId: id, login, grantedAt }) => ({ skillId: id, login, grantedAt }));
}

export async function withdrawGrant(deps: AccessPorts, principal: Principal, skillId: string, login: string): Promise<void> {
  const { skill } = await skillFor(deps, principal, skillId, 'skill.manage_access');
  await revokeGrant(deps.db, skill.id, login);
  await recordOnSkill(deps, skill, principal, 'grant.revoked', { login: login.toLowerCase() });
}
