import { notFound } from '#core/errors';
import { canSee, type Credential, ownerOf, SCOPES, skillResource } from '#core/policy';
import type { ApiKeyBody, User } from '#core/schemas';
import type { Deps } from '../platform/composition.ts';
import { type ApiKeyItem, authenticateApiKey, createApiKey, type KeyLimits, listApiKeys, recordApiKeyUse, revokeApiKey } from '../store/api-keys.ts';
import { getOrg } from '../store/orgs.ts';
import { getSkills, standInSkill } from '../store/skills.ts';
import { toUser } from '../store/users.ts';
import { allow, callerFor, keyCredential, missingSkill, orgsToRead, type Principal, rolesIn } from './authorization.ts';
import { record } from './audit.ts';

/**
 * API keys: managed by their owner from a browser session, and presented by CI and the CLI as
 * `Authorization: Bearer sk_...`. Only the key's hash is stored. A key may be limited to some
 * scopes, narrowed to one organisation or to some skills, and made to expire; one made without
 * any of that can do whatever its owner may, for good, as keys always could.
 */
type KeyPorts = Pick<Deps, 'db' | 'clock' | 'config' | 'log'>;

/** The key that authenticated a request, kept so its use can be recorded once the request succeeds. */
export interface ApiKeyUse {
  key: ApiKeyItem;
  keyHash: string;
}

/**
 * The owner of `key`, what the key lets them do, and the key's record; undefined for a key that is
 * unknown, revoked or malformed; `expired` for one past its expiry.
 */
export async function apiKeyOwner(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  key: string,
): Promise<{ user: User; credential: Credential; use: ApiKeyUse } | 'expired' | undefined> {
  const found = await authenticateApiKey(db, key);
  if (!found?.owner) return undefined;
  if (found.key.expiresAt !== undefined && Date.parse(found.key.expiresAt) <= clock().getTime()) return 'expired';
  return { user: toUser(found.owner), credential: keyCredential(found.key), use: { key: found.key, keyHash: found.keyHash } };
}

/** Refreshes the key's last use (a hint for its owner, at most once a minute). */
export function recordKeyUse({ db, clock }: Pick<Deps, 'db' | 'clock'>, use: ApiKeyUse): Promise<void> {
  return recordApiKeyUse(db, use, clock());
}

/**
 * A new key for the caller, shown once. Narrowed to an organisation, the caller must be one of
 * its members (404 for no such organisation, 403 for a stranger); narrowed to skills, each must be
 * one the caller can see (404 otherwise, as for a skill that does not exist). Either way the key
 * can never do more than its owner may: every request asks the policy with the owner's roles as
 * they are then. A key narrowed to an organisation is recorded in its audit log.
 */
export async function issueApiKey(deps: KeyPorts, principal: Principal, body: ApiKeyBody) {
  const { db, clock } = deps;
  await allow(deps, principal, 'account.manage_keys', { kind: 'account', userId: principal.user.id });
  const keyLimits: KeyLimits = {};
  if (body.scopes) keyLimits.scopes = [...body.scopes].sort((a, b) => SCOPES.indexOf(a) - SCOPES.indexOf(b));
  if (body.org !== undefined) {
    const org = await getOrg(db, body.org);
    if (!org) throw notFound(`No organisation ${body.org}`);
    await allow(deps, principal, 'org.narrow_key', { kind: 'org', login: org.login }, rolesIn(org, principal.user.id));
    keyLimits.org = org.login;
  }
  if (body.skills) {
    const found = new Map((await getSkills(db, body.skills)).map((skill) => [skill.id, skill]));
    for (const id of body.skills) {
      // A missing skill is weighed as a hidden one (standInSkill), on the same path to the same 404.
      const skill = found.get(id);
      const weighed = skill ?? standInSkill();
      const caller = await callerFor(deps, principal, orgsToRead(weighed));
      if (!canSee(caller, skillResource(weighed)) || !skill) throw notFound(missingSkill(id));
    }
    keyLimits.skills = body.skills;
  }
  const now = clock();
  if (body.expiresInDays !== undefined) keyLimits.expiresAt = new Date(now.getTime() + body.expiresInDays * 86_400_000).toISOString();
  const { item, key } = await createApiKey(db, principal.user.id, body.name, now, keyLimits);
  await recordKey(deps, principal, 'key.created', item);
  const { lastUsedAt: _never, ...created } = shown(item);
  return { ...created, key };
}

/** The owner's keys, newest first, as the owner may see them again (a prefix, never the key). */
export async function apiKeysOf({ db }: Pick<Deps, 'db'>, userId: string) {
  const keys = await listApiKeys(db, userId);
  keys.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
  return keys.map(shown);
}

export async function withdrawApiKey(deps: KeyPorts, principal: Principal, keyId: string): Promise<void> {
  const item = await revokeApiKey(deps.db, principal.user.id, keyId);
  await recordKey(deps, principal, 'key.revoked', item);
}

/** A key as its owner sees it: what it may do and reach, never the key itself. */
function shown(item: ApiKeyItem) {
  const credential = keyCredential(item);
  return {
    id: item.id,
    name: item.name,
    prefix: item.prefix,
    createdAt: item.createdAt,
    lastUsedAt: item.lastUsedAt,
    scopes: [...credential.scopes],
    org: item.org ?? null,
    skills: item.skills ?? null,
    expiresAt: item.expiresAt ?? null,
  };
}

/** What an organisation's log says of a key narrowed to it: its name and limits, never a part of the secret. */
/**
 * Writes a key's creation or revocation to the logs of the organisations it reaches: the one it is
 * narrowed to, or each that owns one of the skills it is narrowed to (naming that organisation's
 * skills alone, by slug).
 */
async function recordKey(deps: KeyPorts, principal: Principal, action: 'key.created' | 'key.revoked', item: ApiKeyItem): Promise<void> {
  const details = { name: item.name, scopes: [...keyCredential(item).scopes] };
  const expiresAt = item.expiresAt ?? null;
  if (item.org !== undefined) await record(deps, item.org, principal, action, item.id, { ...details, expiresAt });
  if (!item.skills) return;
  const byOrg = new Map<string, string[]>();
  for (const skill of await getSkills(deps.db, item.skills)) {
    const owner = ownerOf(skill);
    if (owner.type === 'org') byOrg.set(owner.login, [...(byOrg.get(owner.login) ?? []), skill.slug]);
  }
  for (const [org, slugs] of byOrg) await record(deps, org, principal, action, item.id, { ...details, skills: slugs.sort(), expiresAt });
}
