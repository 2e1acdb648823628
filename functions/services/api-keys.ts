import type { User } from '#core/schemas';
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

/** The owner of `key` and the key's record; undefined for a key that is unknown, revoked or malformed. */
export async function apiKeyOwner({ db }: Pick<Deps, 'db'>, key: string): Promise<{ user: User; use: ApiKeyUse } | undefined> {
  const found = await authenticateApiKey(db, key);
  if (!found?.owner) return undefined;
  return { user: toUser(found.owner), use: { key: found.key, keyHash: found.keyHash } };
}

/** Refreshes the key's last use (a hint for its owner, at most once a minute). */
export function recordKeyUse({ db, clock }: KeyPorts, use: ApiKeyUse): Promise<void> {
  return recordApiKeyUse(db, use, clock());
}

export function issueApiKey({ db, clock }: KeyPorts, userId: string, name: string): Promise<CreatedApiKey> {
  return createApiKey(db, userId, name, clock());
}

/** The owner's keys, newest first, as the owner may see them again (a prefix, never the key). */
export async function apiKeysOf({ db }: KeyPorts, userId: string) {
  const keys = await listApiKeys(db, userId);
  keys.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
  return keys.map(({ id, name, prefix, createdAt, lastUsedAt }) => ({ id, name, prefix, createdAt, lastUsedAt }));
}

export function withdrawApiKey({ db }: KeyPorts, userId: string, keyId: string): Promise<void> {
  return revokeApiKey(db, userId, keyId);
}
