import { notFound } from '#core/errors';
import type { User } from '#core/schemas';
import type { Deps } from '../platform/composition.ts';
import { type CreatedDownloadToken, createDownloadToken, listDownloadTokens, revokeDownloadToken } from '../store/download-tokens.ts';
import { listGrants, putGrant, revokeGrant } from '../store/grants.ts';
import { findUserByLogin } from '../store/users.ts';
import { authoredSkill } from './authorship.ts';

/**
 * Paid access, managed by the skill's author: download tokens (shown once, stored hashed) and
 * grants to other users' accounts. Every operation first checks that `user` wrote the skill.
 */
type AccessPorts = Pick<Deps, 'db' | 'clock'>;

export interface TokenRequest {
  expiresInSeconds: number;
  maxUses?: number;
}

export async function issueDownloadToken({ db, clock }: AccessPorts, user: User, skillId: string, request: TokenRequest): Promise<CreatedDownloadToken> {
  const skill = await authoredSkill(db, skillId, user, 'issue its download tokens');
  return createDownloadToken(db, { skillId: skill.id, createdBy: user.id, ...request }, clock());
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
