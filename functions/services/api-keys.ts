import type { Credential } from '#core/policy';
import type { User } from '#core/schemas';
import { keyCredential } from './authorization.ts';
import type { Deps } from '../platform/composition.ts';
import { type ApiKeyItem, authenticateApiKey, type CreatedApiKey, createApiKey, listApiKeys, recordApiKeyUse, revokeApiKey } from '../store/api-keys.ts';
import { toUser } from '../store/users.ts';

/**
 * API keys: managed by their owner from a browser session, and presented by CI and the CLI as
 * `Authorization: Bearer sk_...`. Only the key's hash is stored.
 */
type KeyPorts = Pick<Deps, 'db' | 'clock'>;

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
  { db, clock }: KeyPorts,
  key: string,
): Promise<{ user: User; credential: Credential; use: ApiKeyUse } | 'expired' | undefined> {
  const found = await authenticateApiKey(db, key);
  if (!found?.owner) return undefined;
  if (found.key.expiresAt !== undefined && Date.parse(found.key.expiresAt) <= clock().getTime()) return 'expired';
  return { user: toUser(found.owner), credential: keyCredential(found.key), use: { key: found.key, keyHash: found.keyHash } };
}

/** Refreshes the key's last use (a hint for its owner, at most once a minute). */
export function recordKeyUse({ db, clock }: KeyPorts, use: ApiKeyUse): Promise<void> {
  return recordApiKeyUse(db, use, clock());
}

export async function issueApiKey({ db, clock }: KeyPorts, userId: string, name: string): Promise<Omit<CreatedApiKey, 'item'>> {
  const { item: _stored, ...created } = await createApiKey(db, userId, name, clock());
  return created;
}

/** The owner's keys, newest first, as the owner may see them again (a prefix, never the key). */
export async function apiKeysOf({ db }: KeyPorts, userId: string) {
  const keys = await listApiKeys(db, userId);
  keys.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
  return keys.map(({ id, name, prefix, createdAt, lastUsedAt }) => ({ id, name, prefix, createdAt, lastUsedAt }));
}

export async function withdrawApiKey({ db }: KeyPorts, userId: string, keyId: string): Promise<void> {
  await revokeApiKey(db, userId, keyId);
}
