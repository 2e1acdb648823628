import { createHash, randomBytes } from 'node:crypto';

/**
 * Bearer secrets (API keys, session and download tokens): 256 random bits, shown to their owner
 * once, stored only as SHA-256. A leaked table never yields a usable secret.
 */
export function newSecret(prefix = ''): string {
  return prefix + randomBytes(32).toString('base64url');
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A short random id for things listed to their owner (keys, tokens). */
export function newId(): string {
  return randomBytes(12).toString('base64url');
}
