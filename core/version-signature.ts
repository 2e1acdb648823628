import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import type { Provenance } from './provenance.ts';
import type { ScanResult } from './scan/finding.ts';
import type { Effects } from './effects/effect.ts';
import type { Behaviour } from './version-behaviour.ts';

/**
 * Registry signatures (docs/api.md §11.11): the registry signs each version — its integrity, and
 * what a client acts on besides the bytes: its provenance, its scan verdict, whether it is yanked,
 * its behaviour and effects — with an ECDSA P-256 key, so a client can tell that what it installs and what it is told about
 * it are what the registry published, whoever served them in between. Pure: the signer lives in
 * functions/platform/signer.ts; the CLI and the tests verify with {@link verifyVersionSignature}.
 */

/** The one algorithm keys are used with: ECDSA over P-256 with SHA-256, as KMS names it. */
export const SIGNING_ALG = 'ECDSA_P256_SHA256';

/**
 * A version's signature as the registry documents carry it: the key's id, the base64 of the DER
 * signature, and the format of the message signed ({@link signedMessage}): absent for format 1.
 */
export interface VersionSignature {
  keyid: string;
  sig: string;
  format?: SignedFormat;
}

/** The format of the message the registry signs now (docs/api.md §11.11); 1 is `<slug>@<version>:<integrity>`, 2 the JSON without behaviour and effects. */
export const SIGNATURE_FORMAT = 3;

/** The formats of signed messages a signature may name (absent: 1). */
type SignedFormat = 2 | typeof SIGNATURE_FORMAT;
/** Every format a signature may be in. */
type AnyFormat = 1 | SignedFormat;

/** Another key's word that a key is the registry's: its id, signed by the key before it ({@link endorsementMessage}). */
export interface KeyEndorsement {
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
  /** A key that replaced another: the old key's signature of {@link endorsementMessage} for this one, so a client that trusted the old key can trust it. */
  endorsedBy?: KeyEndorsement;
}

/** What a version's signature covers. */
export interface SignedFacts {
  slug: string;
  version: string;
  integrity: string;
  provenance?: Provenance;
  scan?: Pick<ScanResult, 'verdict' | 'reviewed'>;
  yanked?: boolean;
  /** Absent on versions stored before observation: signed as `cleared`. */
  behaviour?: Behaviour;
  effects?: Effects;
}

/**
 * The message signed for a version. Format 3 (what the registry signs now) is the canonical JSON
 * (keys sorted, no spaces) of `{format: 3, slug, version, integrity, provenance, verdict,
 * reviewed, yanked, behaviour, effects}`, `provenance`, `verdict` and `effects` null when the
 * version has none, `reviewed` whether an admin approved its findings on appeal and `behaviour`
 * `cleared` for a version stored before observation, so that a mirror can neither add
 * provenance, turn `suspicious` into `clean`, mark findings reviewed, hide a yank, pass a pending
 * version off as cleared nor hide what it does when run. Format 2, of signatures made before, is
 * the same without `behaviour` and `effects`; format 1 is `<slug>@<version>:<integrity>`, which
 * never begins with `{`, so no format can be read as another.
 */
export function signedMessage(facts: SignedFacts, format: AnyFormat = SIGNATURE_FORMAT): string {
  if (format === 1) return `${facts.slug}@${facts.version}:${facts.integrity}`;
  return canonicalJson({
    format,
    slug: facts.slug,
    version: facts.version,
    integrity: facts.integrity,
    provenance: facts.provenance ?? null,
    verdict: facts.scan?.verdict ?? null,
    reviewed: facts.scan?.reviewed !== undefined,
    yanked: facts.yanked === true,
    ...(format === 2 ? {} : { behaviour: facts.behaviour ?? 'cleared', effects: facts.effects ?? null }),
  });
}

/**
 * A signature as the registry records it: with `signed`, the SHA-256 (hex) of the message it
 * signed, so that the rebuild sees at a glance that a version's facts moved on (a yank, a
 * rescan's verdict) and signs it again. Absent on records made before format 2.
 */
export interface RecordedSignature extends VersionSignature {
  signed?: string;
}

/** The `signed` of a version's facts now: what {@link RecordedSignature.signed} must equal for its signature to still cover them. */
export const signedDigest = (facts: SignedFacts): string => createHash('sha256').update(signedMessage(facts)).digest('hex');

/** What the key before a new one signs to endorse it: the canonical JSON of `{endorses: <keyid>, type: "skillpress-key-endorsement/1"}`. */
export const endorsementMessage = (keyid: string): string => canonicalJson({ endorses: keyid, type: 'skillpress-key-endorsement/1' });

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
export type SignatureProblem = 'missing' | 'unknown_key' | 'expired_key' | 'malformed' | 'mismatch' | 'old_format';

/**
 * Keys already read, by id and PEM: an install checks a signature per version, nearly all by the
 * same key, and reading and fingerprinting it each time cost more than the checks themselves.
 */
const checkedKeys = new Map<string, KeyObject | undefined>();

/** The public key of `key` when it is a P-256 key whose id names it; undefined for any other. */
function checkedPublicKey(key: Pick<RegistryKey, 'keyid' | 'publicKey'>): KeyObject | undefined {
  const known = `${key.keyid}\n${key.publicKey}`;
  if (!checkedKeys.has(known)) checkedKeys.set(known, readPublicKey(key));
  return checkedKeys.get(known);
}

function readPublicKey(key: Pick<RegistryKey, 'keyid' | 'publicKey'>): KeyObject | undefined {
  try {
    const publicKey = createPublicKey(key.publicKey);
    const der = publicKey.export({ type: 'spki', format: 'der' });
    // A key document whose id does not name its key is as good as none.
    const p256 = publicKey.asymmetricKeyType === 'ec' && publicKey.asymmetricKeyDetails?.namedCurve === 'prime256v1';
    return p256 && keyIdOf(der) === key.keyid ? publicKey : undefined;
  } catch {
    return undefined;
  }
}

const wellFormedSig = (sig: unknown): sig is string => typeof sig === 'string' && sig.length <= 200 && /^[A-Za-z0-9+/]+={0,2}$/.test(sig);

/** Whether `sig` is `key`'s signature of `message`. Never throws. */
function signs(publicKey: KeyObject, message: string, sig: string): boolean {
  try {
    return verify('sha256', Buffer.from(message), { key: publicKey, dsaEncoding: 'der' }, Buffer.from(sig, 'base64'));
  } catch {
    return false;
  }
}

/**
 * Checks `signature` over a version's facts against `keys` at `now`. The key must be one of
 * `keys`, P-256 and not past its `expires`; the signature must verify over the message of its
 * format ({@link signedMessage}), which must be at least `minimumFormat`: a client that acts on
 * provenance, verdict or yank asks for format 2, since format 1 covers the integrity alone, and
 * one that acts on behaviour or effects for format 3.
 * Never throws.
 */
export function verifyVersionSignature(
  keys: readonly RegistryKey[],
  facts: SignedFacts,
  signature: unknown,
  now: Date,
  minimumFormat: AnyFormat = 1,
): SignatureProblem | undefined {
  if (signature === undefined || signature === null) return 'missing';
  const { keyid, sig, format = 1 } = signature as Partial<VersionSignature> & { format?: unknown };
  if (typeof keyid !== 'string' || !wellFormedSig(sig) || (format !== 1 && format !== 2 && format !== SIGNATURE_FORMAT)) return 'malformed';
  if (format < minimumFormat) return 'old_format';
  const key = keys.find((k) => k.keyid === keyid);
  if (!key) return 'unknown_key';
  if (key.expires !== undefined && !(Date.parse(key.expires) > now.getTime())) return 'expired_key';
  const publicKey = checkedPublicKey(key);
  if (!publicKey) return 'unknown_key';
  return signs(publicKey, signedMessage(facts, format), sig) ? undefined : 'mismatch';
}

/**
 * The keys of `served` that a client holding `pinned` may trust: the pinned ones, and every key
 * endorsed by a key already trusted (a rotation: `endorsedBy` holds the old key's signature of
 * {@link endorsementMessage}), followed as a chain. A pinned key's public half is taken from the
 * pin when it has one, else from `served` (its id is its fingerprint, so no document can pass
 * off another key under it). With no pins at all, nothing is trusted: the caller decides whether
 * a first use may trust what it is served.
 */
export function keysTrustedFrom(served: readonly RegistryKey[], pinned: readonly { keyid: string; publicKey?: string }[]): RegistryKey[] {
  const known = new Map<string, KeyObject>();
  const learn = (key: { keyid: string; publicKey?: string }) => {
    const publicKey = key.publicKey === undefined ? undefined : checkedPublicKey({ keyid: key.keyid, publicKey: key.publicKey });
    if (publicKey && !known.has(key.keyid)) known.set(key.keyid, publicKey);
  };
  const trusted = new Set(pinned.map((pin) => pin.keyid));
  for (const pin of pinned) learn(pin.publicKey === undefined ? (served.find((k) => k.keyid === pin.keyid) ?? pin) : pin);
  for (let grew = true; grew; ) {
    grew = false;
    for (const key of served) {
      const by = key.endorsedBy;
      if (trusted.has(key.keyid) || !by || !trusted.has(by.keyid) || !wellFormedSig(by.sig)) continue;
      const endorser = known.get(by.keyid);
      if (!endorser || !signs(endorser, endorsementMessage(key.keyid), by.sig)) continue;
      trusted.add(key.keyid);
      learn(key);
      grew = true;
    }
  }
  return served.filter((key) => trusted.has(key.keyid));
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
      (k.expires === undefined || typeof k.expires === 'string') &&
      (k.endorsedBy === undefined || (typeof k.endorsedBy?.keyid === 'string' && typeof k.endorsedBy.sig === 'string')),
  );
  return wellFormed ? (keys as RegistryKey[]) : undefined;
}
