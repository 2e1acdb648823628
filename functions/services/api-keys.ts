import type { Deps } from '../platform/composition.ts';
import { type CreatedApiKey, createApiKey, listApiKeys, revokeApiKey } from '../store/api-keys.ts';

/** API keys, managed by their owner from a browser session. Only the key's hash is stored. */
type KeyPorts = Pick<Deps, 'db' | 'clock'>;

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
