import { createHash, createPublicKey, verify } from 'node:crypto';

/**
 * Registry signatures (docs/api.md §11.11): the registry signs each version's integrity with an
 * ECDSA P-256 key, so a client can tell that what it installs is what the registry published,
 * whoever served the bytes in between. Pure: the signer lives in functions/platform/signer.ts;
 * the CLI and the tests verify with {@link verifyVersionSignature}.
 */

/** The one algorithm keys are used with: ECDSA over P-256 with SHA-256, as KMS names it. */
export const SIGNING_ALG = 'ECDSA_P256_SHA256';

/** A version's signature as the registry documents carry it: the key's id and the base64 of the DER signature. */
export interface VersionSignature {
  keyid: string;
  sig: string;
}

/** A public key of `/.well-known/skillpress/keys.json`. */
export interface RegistryKey {
  keyid: string;
  alg: typeof SIGNING_ALG;
  /** SPKI, PEM. */
  publicKey: string;
  created: string;
  /** Retired keys only: after this instant nothing signed by the key is trusted. */
  expires?: string;
}

/** What is signed for a version: `<slug>@<version>:<integrity>`. */
export const signedMessage = (slug: string, version: string, integrity: string): string => `${slug}@${version}:${integrity}`;

/** A key's id: `SHA256:` and the unpadded base64 of the SHA-256 of its DER SPKI, the same for a file key and a KMS key. */
export function keyIdOf(spkiDer: Uint8Array): string {
  return `SHA256:${createHash('sha256').update(spkiDer).digest('base64').replace(/=+$/, '')}`;
}

/** PEM of a DER SPKI public key. */
export function spkiPem(spkiDer: Uint8Array): string {
  const base64 = Buffer.from(spkiDer).toString('base64');
  return `-----BEGIN PUBLIC KEY-----\n${base64.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END PUBLIC KEY-----\n`;
}

/** Why a signature does not hold, or undefined when it does. */
export type SignatureProblem = 'missing' | 'unknown_key' | 'expired_key' | 'malformed' | 'mismatch';

/**
 * Checks `signature` over `<slug>@<version>:<integrity>` against `keys` at `now`. The key must be
 * one of `keys`, P-256 and not past its `expires`; the signature must verify. Never throws.
 */
export function verifyVersionSignature(
  keys: readonly RegistryKey[],
  message: { slug: string; version: string; integrity: string },
  signature: unknown,
  now: Date,
): SignatureProblem | undefined {
  if (signature === undefined || signature === null) return 'missing';
  const { keyid, sig } = signature as Partial<VersionSignature>;
  if (typeof keyid !== 'string' || typeof sig !== 'string' || sig.length > 200 || !/^[A-Za-z0-9+/]+={0,2}$/.test(sig)) return 'malformed';
  const key = keys.find((k) => k.keyid === keyid);
  if (!key) return 'unknown_key';
  if (key.expires !== undefined && !(Date.parse(key.expires) > now.getTime())) return 'expired_key';
  try {
    const publicKey = createPublicKey(key.publicKey);
    const der = publicKey.export({ type: 'spki', format: 'der' });
    // A key document whose id does not name its key is as good as none.
    if (publicKey.asymmetricKeyType !== 'ec' || publicKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1' || keyIdOf(der) !== keyid) return 'unknown_key';
    const ok = verify(
      'sha256',
      Buffer.from(signedMessage(message.slug, message.version, message.integrity)),
      { key: publicKey, dsaEncoding: 'der' },
      Buffer.from(sig, 'base64'),
    );
    return ok ? undefined : 'mismatch';
  } catch {
    return 'malformed';
  }
}

/** The keys of a keys document a client fetched, or undefined when it is not `{keys: [...]}` of well-formed keys. */
export function parseRegistryKeys(document: unknown): RegistryKey[] | undefined {
  const keys = (document as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length > 100) return undefined;
  const wellFormed = keys.every(
    (k) =>
      k !== null &&
      typeof k === 'object' &&
      typeof k.keyid === 'string' &&
      k.alg === SIGNING_ALG &&
      typeof k.publicKey === 'string' &&
      k.publicKey.length < 2000 &&
      typeof k.created === 'string' &&
      (k.expires === undefined || typeof k.expires === 'string'),
  );
  return wellFormed ? (keys as RegistryKey[]) : undefined;
}
