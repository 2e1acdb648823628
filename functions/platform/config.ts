import { limits } from '#core/limits';
import { type KeyEndorsement, parseRegistryKeys, type RegistryKey } from '#core/version-signature';

/** Everything the handlers read from the environment, read once. */
export interface Config {
  region: string;
  tableName: string;
  contentBucket: string;
  staticBucket: string;
  /** Set locally to the embedded dynalite; unset on AWS. */
  dynamoEndpoint?: string;
  /** Set locally to the embedded s3rver; unset on AWS. */
  s3Endpoint?: string;
  /** Origin that session-authenticated writes must come from; default: the request's own origin. */
  siteOrigin?: string;
  /**
   * The origin this process's HTTP server listens on, once it does (set by the local runtime:
   * `LocalRuntime.listening`); never on AWS, where {@link siteOrigin} is always set. Unlike the
   * request's own origin, it is not something a request can name.
   */
  listeningOrigin?: string;
  devLogin: boolean;
  /** New skills per rolling minute and author; raised only by benchmarks and tests. */
  publishLimit: number;
  /** New versions per rolling minute and author (`SKILLPRESS_VERSION_LIMIT`). */
  versionLimit: number;
  /** Reports per rolling hour and account (`SKILLPRESS_REPORT_LIMIT`). */
  reportLimit: number;
  /**
   * Files and bytes one account may hold sent ahead of a ClawHub publish
   * (`limits.clawhubUploads`); lowered only by tests (`SKILLPRESS_UPLOAD_QUOTA_FILES`, `…_BYTES`).
   */
  uploadQuota: { files: number; bytes: number };
  /** New organisations per rolling day and account (`SKILLPRESS_ORG_LIMIT`). */
  orgLimit: number;
  /** Checks of files before a publish per rolling minute and account (`SKILLPRESS_CHECK_LIMIT`). */
  checkLimit: number;
  /** Logins allowed to list reports, quarantine and release skills (`SKILLPRESS_ADMINS`, comma-separated). */
  admins: string[];
  /**
   * The value CloudFront sends in the `x-skillpress-edge` origin header (`EDGE_SECRET`): a request
   * that carries it came through the CDN, so the viewer address CloudFront wrote is the client's
   * (functions/http/client.ts). Unset locally, where the socket says who the client is.
   */
  edgeSecret?: string;
  /** How often the local runtime rewrites the public install counts (`SKILLPRESS_INSTALLS_INTERVAL_SECONDS`, 300). */
  publicInstallsIntervalSeconds: number;
  /**
   * The largest delivery answered in its response (`limits.inlineDeliveryBytes`, Lambda's); larger
   * ones are answered with a link. Lowered only by tests (`SKILLPRESS_INLINE_DELIVERY_BYTES`).
   */
  inlineDeliveryBytes: number;
  github: GitHubConfig;
  siteBuild: SiteBuildConfig;
  stripe: StripeConfig;
  signing: SigningConfig;
  oidc: OidcConfig;
  /**
   * The observation state machine's ARN on AWS (`SKILLPRESS_OBSERVER_STATE_MACHINE`): versions with
   * runnable content run in the sandbox there. Unset locally, where the sandbox is a child process.
   */
  observationStateMachineArn?: string;
}

/** Trusted publishing (docs/api.md §7.14): whose OIDC tokens the exchange takes. */
export interface OidcConfig {
  /** `SKILLPRESS_OIDC_ISSUER`, GitHub Actions' unless set (tests run a fake issuer on loopback). */
  issuer: string;
  /** `SKILLPRESS_OIDC_JWKS_COOLDOWN_MS`: the least time between two fetches of the issuer's keys for a key it lacked (30 s). */
  jwksCooldownMs: number;
}

/**
 * The registry's signing key (functions/platform/signer.ts): a KMS key on AWS
 * (`SIGNING_KMS_KEY_ID`), a PEM file locally (`SKILLPRESS_SIGNING_KEY_FILE`, which `npm start`
 * sets to `DATA_DIR/signing-key.pem`). With neither, a key given inline (`inlineKey`, which the
 * local runtime fills so its background thread signs with the same key) or made for the process.
 */
export interface SigningConfig {
  region: string;
  kmsKeyId?: string;
  /** `http://127.0.0.1:<port>` for a fake KMS in tests; unset: KMS itself. */
  kmsEndpoint?: string;
  keyFile?: string;
  /** PKCS#8 PEM; never read from the environment. */
  inlineKey?: string;
  /**
   * Public keys no longer signing, still listed in `keys.json` until their `expires`
   * (`SKILLPRESS_RETIRED_SIGNING_KEYS`, a JSON array of keys.json entries): see docs/deploy.md, "Rotating the signing key".
   */
  retiredKeys: RegistryKey[];
  /**
   * The previous key's endorsement of the active key (`SKILLPRESS_SIGNING_KEY_ENDORSEMENT`,
   * `{"keyid", "sig"}`: the old key's signature of the new key's endorsement message), listed on
   * the active key in `keys.json` so that clients that pinned the old key follow the rotation.
   */
  endorsement?: KeyEndorsement;
}

/**
 * A secret setting: its value straight from the environment (local runs, tests), or the name of
 * the AWS Secrets Manager secret that holds it (production, so it never sits in a Lambda's
 * configuration). Read through `functions/platform/secrets-manager.ts`.
 */
export type SecretSource = { value: string } | { secretName: string } | undefined;

/** GitHub sign-in (docs/api.md §4). Sign-in is off (404) until a client id and secret are set. */
export interface GitHubConfig {
  clientId?: string;
  clientSecret: SecretSource;
  /**
   * The REST API (`GITHUB_BASE_URL`), for sign-in and imports alike: `https://api.github.com`
   * unless pointed at a fake GitHub, which `SKILLPRESS_GITHUB_API` does for this and
   * {@link oauthBaseUrl} at once (a fake serves both from one origin).
   */
  apiBaseUrl: string;
  /** The OAuth web flow host (`GITHUB_OAUTH_BASE_URL`, else `SKILLPRESS_GITHUB_API`), `https://github.com` unless pointed at a fake. */
  oauthBaseUrl: string;
  /**
   * The token GitHub imports read repositories and organisation memberships with
   * (`GITHUB_IMPORT_TOKEN`, or `GITHUB_IMPORT_TOKEN_SECRET_NAME` on AWS): a bot's or an app's
   * token that can read the repositories authors import. Without it imports read anonymously,
   * which reaches public repositories and public organisation memberships only.
   */
  importToken: SecretSource;
  /**
   * The key each import's webhook secret is derived from (`SKILLPRESS_IMPORT_KEY`, or
   * `SKILLPRESS_IMPORT_KEY_NAME` on AWS): HMAC-SHA256 of the import's id. Without it imports
   * answer 503 `imports_unavailable`.
   */
  importKey: SecretSource;
}

/** The production site build: a `workflow_dispatch` of the site workflow, at most once per interval. */
export interface SiteBuildConfig {
  /** `owner/name` of the repository whose workflow builds the site; unset: no dispatch. */
  repo?: string;
  /** The workflow file name (`site.yml`) or id. */
  workflow?: string;
  /** The branch or tag the workflow runs on. */
  ref: string;
  token: SecretSource;
  intervalSeconds: number;
}

/**
 * Payments through Stripe (docs/api.md §9.4). Checkout is a 503 until the secret key is set, the
 * webhook until its signing secret is; everything else works without them.
 */
export interface StripeConfig {
  secretKey: SecretSource;
  webhookSecret: SecretSource;
  /** `http://127.0.0.1:<port>` for a fake Stripe in tests; unset: Stripe's own API. */
  apiBase?: string;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    region: env.AWS_REGION ?? 'us-east-1',
    tableName: env.TABLE_NAME ?? 'skillpress',
    contentBucket: env.CONTENT_BUCKET ?? 'skillpress-content',
    staticBucket: env.STATIC_BUCKET ?? 'skillpress-static',
    dynamoEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    s3Endpoint: env.S3_ENDPOINT || undefined,
    siteOrigin: env.SITE_ORIGIN || undefined,
    devLogin: env.SKILLPRESS_DEV_LOGIN === '1',
    publishLimit: positiveInt(env.SKILLPRESS_PUBLISH_LIMIT) ?? limits.publishPerWindow,
    versionLimit: positiveInt(env.SKILLPRESS_VERSION_LIMIT) ?? limits.versionsPerWindow,
    reportLimit: positiveInt(env.SKILLPRESS_REPORT_LIMIT) ?? limits.reportsPerWindow,
    uploadQuota: {
      files: positiveInt(env.SKILLPRESS_UPLOAD_QUOTA_FILES) ?? limits.clawhubUploads.files,
      bytes: positiveInt(env.SKILLPRESS_UPLOAD_QUOTA_BYTES) ?? limits.clawhubUploads.bytes,
    },
    orgLimit: positiveInt(env.SKILLPRESS_ORG_LIMIT) ?? limits.orgsPerWindow,
    checkLimit: positiveInt(env.SKILLPRESS_CHECK_LIMIT) ?? limits.checksPerWindow,
    admins: (env.SKILLPRESS_ADMINS ?? '')
      .split(',')
      .map((login) => login.trim())
      .filter(Boolean),
    edgeSecret: env.EDGE_SECRET || undefined,
    publicInstallsIntervalSeconds: positiveInt(env.SKILLPRESS_INSTALLS_INTERVAL_SECONDS) ?? 300,
    inlineDeliveryBytes: positiveInt(env.SKILLPRESS_INLINE_DELIVERY_BYTES) ?? limits.inlineDeliveryBytes,
    observationStateMachineArn: env.SKILLPRESS_OBSERVER_STATE_MACHINE || undefined,
    github: {
      clientId: env.GITHUB_CLIENT_ID || undefined,
      clientSecret: secretSource(env.GITHUB_CLIENT_SECRET, env.GITHUB_CLIENT_SECRET_NAME),
      apiBaseUrl: trimSlash(env.GITHUB_BASE_URL || env.SKILLPRESS_GITHUB_API || 'https://api.github.com'),
      oauthBaseUrl: trimSlash(env.GITHUB_OAUTH_BASE_URL || env.SKILLPRESS_GITHUB_API || 'https://github.com'),
      importToken: secretSource(env.GITHUB_IMPORT_TOKEN, env.GITHUB_IMPORT_TOKEN_SECRET_NAME),
      importKey: secretSource(env.SKILLPRESS_IMPORT_KEY, env.SKILLPRESS_IMPORT_KEY_NAME),
    },
    siteBuild: {
      repo: env.GITHUB_REPO || undefined,
      workflow: env.GITHUB_WORKFLOW || undefined,
      ref: env.GITHUB_WORKFLOW_REF || 'main',
      token: secretSource(env.GITHUB_TOKEN, env.GITHUB_TOKEN_SECRET_NAME),
      intervalSeconds: positiveInt(env.SITE_BUILD_INTERVAL_SECONDS) ?? 300,
    },
    stripe: {
      secretKey: secretSource(env.STRIPE_SECRET_KEY, env.STRIPE_SECRET_KEY_NAME),
      webhookSecret: secretSource(env.STRIPE_WEBHOOK_SECRET, env.STRIPE_WEBHOOK_SECRET_NAME),
      apiBase: env.STRIPE_API_BASE ? trimSlash(env.STRIPE_API_BASE) : undefined,
    },
    oidc: {
      issuer: trimSlash(env.SKILLPRESS_OIDC_ISSUER || 'https://token.actions.githubusercontent.com'),
      jwksCooldownMs: env.SKILLPRESS_OIDC_JWKS_COOLDOWN_MS === '0' ? 0 : (positiveInt(env.SKILLPRESS_OIDC_JWKS_COOLDOWN_MS) ?? 30_000),
    },
    signing: {
      region: env.AWS_REGION ?? 'us-east-1',
      kmsKeyId: env.SIGNING_KMS_KEY_ID || undefined,
      kmsEndpoint: env.KMS_ENDPOINT ? trimSlash(env.KMS_ENDPOINT) : undefined,
      keyFile: env.SKILLPRESS_SIGNING_KEY_FILE || undefined,
      retiredKeys: retiredKeys(env.SKILLPRESS_RETIRED_SIGNING_KEYS),
      endorsement: endorsement(env.SKILLPRESS_SIGNING_KEY_ENDORSEMENT),
    },
  };
}

/** The retired keys an operator lists; a list that is not keys.json entries stops the process rather than publish a wrong key. */
function retiredKeys(value: string | undefined): RegistryKey[] {
  if (!value) return [];
  const keys = parseRegistryKeys({ keys: JSON.parse(value) });
  if (!keys || keys.some((k) => k.expires === undefined))
    throw new Error('SKILLPRESS_RETIRED_SIGNING_KEYS must be a JSON array of keys.json entries, each with expires');
  return keys;
}

/** The active key's endorsement an operator gives; one that is not `{keyid, sig}` stops the process rather than publish a wrong one. */
function endorsement(value: string | undefined): KeyEndorsement | undefined {
  if (!value) return undefined;
  const parsed = JSON.parse(value) as Partial<KeyEndorsement> | null;
  if (typeof parsed?.keyid !== 'string' || typeof parsed.sig !== 'string')
    throw new Error('SKILLPRESS_SIGNING_KEY_ENDORSEMENT must be {"keyid": "SHA256:…", "sig": "<base64>"}');
  return { keyid: parsed.keyid, sig: parsed.sig };
}

function secretSource(value: string | undefined, secretName: string | undefined): SecretSource {
  if (value) return { value };
  if (secretName) return { secretName };
  return undefined;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function positiveInt(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * This registry's origin as configured: `SITE_ORIGIN`, else the origin the local server listens
 * on; undefined before either is known. Never a request's `Host`, which the caller chooses: what
 * a credential is checked against (an OIDC token's audience, docs/api.md §7.14) comes from here.
 */
export function configuredOrigin(config: Pick<Config, 'siteOrigin' | 'listeningOrigin'>): string | undefined {
  return config.siteOrigin ?? config.listeningOrigin;
}
