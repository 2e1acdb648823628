import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import {
  keyIdOf,
  type RecordedSignature,
  type RegistryKey,
  SIGNATURE_FORMAT,
  type SignedFacts,
  SIGNING_ALG,
  signedDigest,
  signedMessage,
  spkiPem,
  type VersionSignature,
} from '#core/version-signature';
import type { SigningConfig } from './config.ts';
import { withoutSdkLogging } from './sdk-client.ts';

/**
 * The registry's signing key (docs/api.md §11.11): a file under DATA_DIR locally, a KMS
 * asymmetric key on AWS, behind one port. The publish signs the version it stores and the rebuild
 * signs whatever is unsigned (or signed by a retired key) and publishes the public keys. Nothing
 * above this file imports `@aws-sdk/client-kms`, which is loaded on first use.
 */
export interface Signer {
  /** An ECDSA P-256 signature over `message` (SHA-256), DER, in base64, with the id of the key that made it. */
  sign(message: string): Promise<VersionSignature>;
  /** The signing key's public half, as `keys.json` lists it. */
  activeKey(): Promise<RegistryKey>;
}

/** A version's signature of its facts now (format 2), as the registry records it. */
export async function signVersionFacts(signer: Signer, facts: SignedFacts): Promise<RecordedSignature> {
  const { keyid, sig } = await signer.sign(signedMessage(facts));
  return { keyid, sig, format: SIGNATURE_FORMAT, signed: signedDigest(facts) };
}

/**
 * The keys `keys.json` lists (docs/api.md §11.11), which the CLI package a registry serves pins
 * too: the active key, with the previous key's endorsement of it when the operator gave one
 * (SKILLPRESS_SIGNING_KEY_ENDORSEMENT), then the retired keys until they expire.
 */
export async function publishedKeys(signer: Signer, config: Pick<SigningConfig, 'retiredKeys' | 'endorsement'>, now: Date): Promise<RegistryKey[]> {
  const active = await signer.activeKey();
  const retired = config.retiredKeys.filter((k) => k.expires !== undefined && Date.parse(k.expires) > now.getTime());
  return [{ ...active, ...(config.endorsement ? { endorsedBy: config.endorsement } : {}) }, ...retired];
}

/** The signer `config` names: a KMS key, a key file, or (tests that build their own parts) a key given inline. */
export function createSigner(config: SigningConfig): Signer {
  if (config.kmsKeyId !== undefined) return new KmsSigner(config.kmsKeyId, config.kmsEndpoint, config.region);
  if (config.keyFile !== undefined) return new KeySigner(() => fileKey(config.keyFile!));
  return new KeySigner(() => ({ key: createPrivateKey(config.inlineKey ?? newKeyPem()), created: new Date().toISOString() }));
}

/** A new P-256 private key, PKCS#8 PEM. */
export function newKeyPem(): string {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** A key held in this process (the file key, or one given inline). */
class KeySigner implements Signer {
  private loaded?: { key: KeyObject; active: RegistryKey };

  constructor(private readonly load: () => { key: KeyObject; created: string }) {}

  private get held() {
    if (!this.loaded) {
      const { key, created } = this.load();
      const der = createPublicKey(key).export({ type: 'spki', format: 'der' });
      this.loaded = { key, active: { keyid: keyIdOf(der), alg: SIGNING_ALG, publicKey: spkiPem(der), created } };
    }
    return this.loaded;
  }

  async sign(message: string): Promise<VersionSignature> {
    const { key, active } = this.held;
    return { keyid: active.keyid, sig: sign('sha256', Buffer.from(message), { key, dsaEncoding: 'der' }).toString('base64') };
  }

  async activeKey(): Promise<RegistryKey> {
    return this.held.active;
  }
}

/**
 * The key in `path`, made at first use: written to a file of its own (0600) and linked into
 * place, so two processes starting together (the server and its background thread) end with one
 * key, never a half-written one.
 */
function fileKey(path: string): { key: KeyObject; created: string } {
  try {
    return readKeyFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const draft = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(draft, newKeyPem(), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(draft, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(draft);
  }
  return readKeyFile(path);
}

function readKeyFile(path: string): { key: KeyObject; created: string } {
  const key = createPrivateKey(readFileSync(path));
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error(`${path} is not an ECDSA P-256 private key`);
  return { key, created: statSync(path).mtime.toISOString() };
}

type Kms = import('@aws-sdk/client-kms').KMSClient;

/** A KMS asymmetric key (ECC_NIST_P256, SIGN_VERIFY): the private half never leaves KMS. */
class KmsSigner implements Signer {
  private client?: Promise<{ kms: Kms; sdk: typeof import('@aws-sdk/client-kms') }>;
  private active?: Promise<RegistryKey>;

  constructor(
    private readonly keyId: string,
    private readonly endpoint: string | undefined,
    private readonly region: string,
  ) {}

  private kms() {
    this.client ??= import('@aws-sdk/client-kms').then((sdk) => ({
      sdk,
      kms: withoutSdkLogging(
        new sdk.KMSClient({
          region: this.region,
          ...(this.endpoint ? { endpoint: this.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
        }),
      ),
    }));
    return this.client;
  }

  async sign(message: string): Promise<VersionSignature> {
    const [{ kms, sdk }, active] = await Promise.all([this.kms(), this.activeKey()]);
    const answer = await kms.send(
      new sdk.SignCommand({ KeyId: this.keyId, Message: Buffer.from(message), MessageType: 'RAW', SigningAlgorithm: 'ECDSA_SHA_256' }),
    );
    if (!answer.Signature) throw new Error('KMS answered Sign without a signature');
    return { keyid: active.keyid, sig: Buffer.from(answer.Signature).toString('base64') };
  }

  activeKey(): Promise<RegistryKey> {
    this.active ??= this.describe().catch((error: unknown) => {
      this.active = undefined;
      throw error;
    });
    return this.active;
  }

  private async describe(): Promise<RegistryKey> {
    const { kms, sdk } = await this.kms();
    const [key, described] = await Promise.all([
      kms.send(new sdk.GetPublicKeyCommand({ KeyId: this.keyId })),
      kms.send(new sdk.DescribeKeyCommand({ KeyId: this.keyId })),
    ]);
    if (!key.PublicKey || key.KeySpec !== 'ECC_NIST_P256') throw new Error(`KMS key ${this.keyId} is not an ECC_NIST_P256 signing key`);
    const created = described.KeyMetadata?.CreationDate ?? new Date(0);
    return { keyid: keyIdOf(key.PublicKey), alg: SIGNING_ALG, publicKey: spkiPem(key.PublicKey), created: created.toISOString() };
  }
}
