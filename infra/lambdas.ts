/**
 * The Lambda functions of the service, one per concern, as data. `scripts/build.ts` bundles each
 * one's entry file `functions/handlers/<name>.ts` into `dist/functions/<name>/index.mjs`; `infra/stack.ts`
 * gives it its HTTP routes or triggers and exactly the access declared here (least privilege).
 * Adding a Lambda is adding one entry; a test checks that every route the HTTP app serves is
 * mapped here, and that each Lambda's bundle really answers the routes given to it.
 */

import { PREPARED_DELIVERIES_PREFIX } from '../functions/content/delivery-links.ts';
import { SHARD_OUTPUTS_PREFIX } from '../functions/content/shard-outputs.ts';
import { prefix, rebuildSources } from '../functions/store/keys.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/**
 * An API Gateway route key: method and path, with `{param}` placeholders. Routes are under
 * `/api/`, but for ClawHub's discovery document, which its clients look for at that exact path
 * (CloudFront sends that path to the API too, infra/stack.ts).
 */
export type RouteKey = `${HttpMethod} /api/${string}` | (typeof CLAWHUB_WELL_KNOWN_ROUTES)[number];
export const CLAWHUB_WELL_KNOWN_ROUTES = ['GET /.well-known/clawhub.json', 'GET /.well-known/clawdhub.json'] as const;

export interface LambdaSpec {
  /** The entry `functions/handlers/<name>.ts`, the bundle `dist/functions/<name>/`, the function's name. */
  name: string;
  description: string;
  routes?: readonly RouteKey[];
  /** Also answers requests no route matches (API Gateway's `$default`), with the JSON 404. */
  catchAll?: boolean;
  table: {
    /** GetItem, BatchGetItem and Query on the table and its index. */
    read: boolean;
    /** Scan: only the passes that walk the whole table (the full rebuild, the public install counts). */
    scan?: boolean;
    /** Partition key prefixes of the items it may put, update and delete (`dynamodb:LeadingKeys`). */
    write: readonly string[];
  };
  /**
   * The private content bucket (file bytes by SHA-256). `write` includes read. A Lambda granted
   * neither bucket is bundled without the S3 client (`scripts/lambda-bundles.ts`).
   */
  content?: 'read' | 'write';
  /**
   * Runs the content scanner (publishing, appeals): only its bundle carries the rule engine, a
   * 2.3 MB chunk loaded on first use (`scripts/lambda-bundles.ts`; a test holds the two together).
   */
  scans?: boolean;
  /** Prefixes of the content bucket it may put objects under, beside its `content` level (and only put). */
  contentPuts?: readonly string[];
  /** The static bucket behind the CDN (registry JSON, bundles, catalog, site). */
  static?: 'read' | 'write';
  /** GitHub settings it is given: the OAuth app (sign-in), the site workflow (dispatch), or the import token and key (imports). */
  github?: readonly ('sign-in' | 'site-build' | 'import')[];
  /** Stripe secrets it may read: the API secret key (checkout) or the webhook signing secret. */
  stripe?: readonly ('api' | 'webhook')[];
  /**
   * The registry's KMS signing key (functions/platform/signer.ts): `sign` may `kms:Sign` with it
   * (and read its public half, to name it); `publish-keys` may also describe it, for keys.json.
   * It is given no other key and no other action.
   */
  signing?: 'sign' | 'publish-keys';
  /** Consumes CloudFront's real-time log of discovery downloads (a Kinesis stream). */
  cdnLog?: boolean;
  /** Consumes the table's stream, only for items whose keys start so. */
  stream?: { partitionPrefix: string; sortKeyPrefixes: readonly string[] };
  /**
   * Counts installs from API requests: it is given the edge's secret (`EDGE_SECRET`), so it may
   * trust the viewer address CloudFront passes on (functions/http/client.ts).
   */
  countsInstalls?: boolean;
  /**
   * Its part in the daily full rebuild's state machine (infra/stack.ts): a `shard` (one of many at
   * once, its output stored under the content bucket's `rebuild-runs/`), or the `finish` that
   * reads every shard's output and writes the shared indexes.
   */
  fullRebuild?: 'shard' | 'finish';
  /**
   * Its part in the observer state machine (infra/sandbox.ts): `record` is its last step, which
   * records what a version did in the sandbox.
   */
  observer?: 'record';
  /** EventBridge schedules (rate or cron expressions) that invoke it. */
  schedules?: readonly { id: string; expression: string }[];
  memoryMb?: number;
  timeoutSeconds?: number;
}

/** What counting an install writes: the counters, the day's secret, the clients seen that day and the skills installed lately. */
const installWrites = [prefix.installs, prefix.installSecret, prefix.visitor, prefix.recentInstalls] as const;

export const lambdas: readonly LambdaSpec[] = [
  {
    name: 'auth',
    description: "Dev and GitHub sign-in, /api/me and the author's skills, sign-out, health, the OpenAPI document and the JSON 404",
    routes: [
      'GET /api/auth/methods',
      'GET /api/me/skills',
      'GET /api/auth/github',
      'GET /api/auth/github/callback',
      'POST /api/auth/dev-login',
      'GET /api/me',
      'POST /api/auth/logout',
      'GET /api/health',
      'GET /api/openapi.json',
    ],
    catchAll: true,
    // APIKEY#: the key's lastUsedAt, when /api/me is asked with a key. A GitHub sign-in whose login
    // an organisation holds renames it (services/login-reclaim.ts): ORG# (it, its invitations),
    // USER# (members' pointers), APIKEY# (keys narrowed to it), AUDIT#, SKILL# (its skills' owner)
    // and TRUST# (their publishers' owner).
    table: { read: true, write: [prefix.user, prefix.login, prefix.session, prefix.apiKey, prefix.org, prefix.audit, prefix.skill, prefix.trust] },
    github: ['sign-in'],
  },
  {
    name: 'api-keys',
    description: 'Create, list and revoke API keys (session only); exchange a CI OIDC token for a publish token',
    routes: ['POST /api/api-keys', 'GET /api/api-keys', 'DELETE /api/api-keys/{id}', 'POST /api/oidc/exchange'],
    // AUDIT#: a key narrowed to an organisation is recorded in its log; PUBLISHTOKEN#: publish
    // tokens; OIDCJTI#: the OIDC tokens exchanged.
    table: { read: true, write: [prefix.apiKey, prefix.audit, prefix.publishToken, prefix.oidcToken] },
  },
  {
    name: 'orgs',
    description: 'Organisations: creation, members and roles, invitations, the audit log',
    routes: [
      'POST /api/orgs',
      'GET /api/orgs/{org}',
      'DELETE /api/orgs/{org}',
      'GET /api/orgs/{org}/members',
      'PUT /api/orgs/{org}/members/{login}',
      'DELETE /api/orgs/{org}/members/{login}',
      'POST /api/orgs/{org}/invitations',
      'GET /api/orgs/{org}/invitations',
      'DELETE /api/orgs/{org}/invitations/{login}',
      'POST /api/orgs/{org}/invitations/{login}/accept',
      'POST /api/orgs/{org}/invitations/{login}/decline',
      'GET /api/orgs/{org}/audit',
      'GET /api/me/invitations',
      'GET /api/me/orgs',
    ],
    // ORG#: the organisation, its members and invitations; USER#: each member's pointer to it;
    // LOGIN#: its login's claim; AUDIT#: its log; APIKEY#: a key's lastUsedAt (members, audit);
    // RL#: the limit of new organisations.
    table: { read: true, write: [prefix.org, prefix.user, prefix.login, prefix.audit, prefix.apiKey, prefix.rateLimit] },
  },
  {
    name: 'publish',
    description: 'Publish a new skill at 1.0.0 (API key, rate limited)',
    scans: true,
    routes: ['POST /api/publish'],
    // APIKEY#: the key's lastUsedAt; RL#: the publish rate limit; SLUG#: the slug claim; ORG#: an
    // organisation's count of skills; AUDIT#: its log.
    table: { read: true, write: [prefix.apiKey, prefix.rateLimit, prefix.slug, prefix.skill, prefix.org, prefix.audit] },
    content: 'write',
    memoryMb: 1024,
    signing: 'sign',
  },
  {
    name: 'imports',
    description: "GitHub imports: a repository's skill folders published as new skills and versions, synced by its webhook and sync now",
    scans: true,
    routes: ['POST /api/imports', 'GET /api/imports', 'POST /api/imports/{id}/sync', 'POST /api/imports/{id}/webhook'],
    // What publishing skills and versions writes (RL#, SLUG#, SKILL#, ORG#, AUDIT#, APIKEY#), and
    // IMPORT#: the imports and their last sync.
    table: { read: true, write: [prefix.apiKey, prefix.rateLimit, prefix.slug, prefix.skill, prefix.org, prefix.audit, prefix.import] },
    content: 'write',
    // The only Lambda given the import token and the key webhook secrets are derived from.
    github: ['import'],
    memoryMb: 1024,
    // A repository's folders are read blob by blob and published one by one: API Gateway's 30 s.
    timeoutSeconds: 29,
    signing: 'sign',
  },
  {
    name: 'versions',
    description:
      'Publish a new version of a skill, see how it fared in the sandbox, change its price or visibility, transfer it, yank and deprecate (its owning side)',
    scans: true,
    routes: [
      'POST /api/skills',
      'POST /api/skills/check',
      'POST /api/skills/{id}/versions',
      'PATCH /api/skills/{id}',
      'POST /api/skills/{id}/transfer',
      'POST /api/skills/{id}/versions/{version}/yank',
      'DELETE /api/skills/{id}/versions/{version}/yank',
      'GET /api/skills/{id}/versions/{version}/behaviour',
      'POST /api/skills/{id}/deprecate',
      'DELETE /api/skills/{id}/deprecate',
      'POST /api/skills/{id}/trusted-publishers',
      'GET /api/skills/{id}/trusted-publishers',
      'DELETE /api/skills/{id}/trusted-publishers/{publisherId}',
    ],
    // RL#: the version rate limit; SKILL#: the version, its fingerprint, signature and META; ORG#:
    // an organisation's count of skills (transfers); AUDIT#: its log; TRUST#: trusted publishers.
    table: { read: true, write: [prefix.apiKey, prefix.rateLimit, prefix.skill, prefix.org, prefix.audit, prefix.trust] },
    content: 'write',
    memoryMb: 1024,
    signing: 'sign',
  },
  {
    name: 'deliver',
    description:
      "Deliver a version's files (paid ones with a token or an entitled session, private ones to members), counting each; private skills' registry documents and the batch resolve",
    routes: ['GET /api/deliver/{skillId}', 'GET /api/me/registry/{slug}', 'GET /api/me/registry/{slug}/versions', 'GET /api/resolve'],
    // The install counters (DL#; ADD only), the day's secret and the clients seen (distinct
    // installs); TOKEN#: a download token's uses; LOOKALIKE#: a skill that reaches 100 distinct
    // installs joins the imitation check's index; APIKEY#: a key's lastUsedAt.
    table: { read: true, write: [...installWrites, prefix.downloadToken, prefix.lookalike, prefix.apiKey] },
    content: 'read',
    // A delivery too large for a response: linked to its bundle when the static bucket has it,
    // else to a copy of it kept under deliveries/ for a pre-signed link (functions/content/delivery-links.ts).
    contentPuts: [PREPARED_DELIVERIES_PREFIX],
    static: 'read',
    countsInstalls: true,
    memoryMb: 1024,
  },
  {
    name: 'access',
    description: 'Download tokens and grants of paid skills (the author; buyers and grantees mint tokens for themselves)',
    routes: [
      'POST /api/skills/{id}/download-tokens',
      'GET /api/skills/{id}/download-tokens',
      'DELETE /api/skills/{id}/download-tokens/{tokenId}',
      'POST /api/skills/{id}/grants',
      'GET /api/skills/{id}/grants',
      'DELETE /api/skills/{id}/grants/{login}',
    ],
    // AUDIT#: an organisation's log records its skills' tokens and grants.
    table: { read: true, write: [prefix.apiKey, prefix.downloadToken, prefix.grant, prefix.audit] },
  },
  {
    name: 'purchases',
    description: "Stripe Checkout for paid skills, a buyer's purchases and an author's sales",
    routes: ['POST /api/skills/{id}/checkout', 'GET /api/me/purchases', 'GET /api/skills/{id}/sales'],
    // APIKEY#: the key's lastUsedAt (sales take an API key). Nothing is stored at checkout.
    table: { read: true, write: [prefix.apiKey] },
    stripe: ['api'],
  },
  {
    name: 'stripe-webhook',
    description: "Stripe's webhook: records paid checkouts as purchases, revokes refunded ones",
    routes: ['POST /api/stripe/webhook'],
    // PURCHASE#: the purchase records; PAYMENT#: which purchase each payment paid for, and its refund.
    table: { read: true, write: [prefix.purchase, prefix.payment] },
    stripe: ['webhook'],
  },
  {
    name: 'analytics',
    description: 'Install analytics of a skill (session, author only)',
    routes: ['GET /api/analytics/{skillId}'],
    table: { read: true, write: [] },
  },
  {
    name: 'moderation',
    description: "Reports of skills (session) and the admins' quarantine and release",
    routes: [
      'POST /api/skills/{id}/reports',
      'GET /api/skills/{id}/reports',
      'GET /api/admin/reports',
      'POST /api/admin/skills/{id}/quarantine',
      'DELETE /api/admin/skills/{id}/quarantine',
    ],
    // REPORT#: the reports; REPORTER#: the reporters' records of decided reports; RL#: the report
    // rate limit; SKILL#: the quarantine on a skill's META (its stream write starts the rebuild).
    table: { read: true, write: [prefix.report, prefix.reporter, prefix.rateLimit, prefix.skill] },
  },
  {
    name: 'appeals',
    description: "Appeals of versions the scan refuses (API key or session), and the admins' approvals, which publish them, and declines",
    scans: true,
    routes: [
      'POST /api/appeals',
      'GET /api/appeals',
      'GET /api/admin/appeals',
      'GET /api/admin/appeals/{id}',
      'POST /api/admin/appeals/{id}/approve',
      'POST /api/admin/appeals/{id}/decline',
    ],
    // APPEAL#: the appeals; APPEALQUEUE: the admins' queue; PENDINGAPPEALS#: each author's count; APIKEY#: the key's lastUsedAt; RL#: the
    // publish and version rate limits an appeal counts against. Approving publishes as the publish
    // and versions Lambdas do: SLUG#: the slug claim; SKILL#: the skill, its version and
    // fingerprint; ORG#: an organisation's count of skills; AUDIT#: its log.
    table: {
      read: true,
      write: [prefix.appeal, prefix.appealQueue, prefix.pendingAppeals, prefix.apiKey, prefix.rateLimit, prefix.slug, prefix.skill, prefix.org, prefix.audit],
    },
    // The files wait in the content bucket, and are read back to be reviewed and published.
    content: 'write',
    memoryMb: 1024,
  },
  {
    name: 'search',
    description: 'Search the catalog: the static search index the rebuild writes, completed from the catalog',
    routes: ['GET /api/search'],
    table: { read: false, write: [] },
    // The search index and the catalog.
    static: 'read',
    memoryMb: 1024,
  },
  {
    name: 'site-pages',
    description: 'The page in place of one the site build did not make (CloudFront fails over to it): a skill or author fallback page, or the 404 page',
    routes: ['GET /api/pages/{path+}'],
    table: { read: false, write: [] },
    // The fallback and 404 pages, and whether a skill's registry document exists.
    static: 'read',
  },
  {
    name: 'clawhub',
    description: 'The ClawHub-compatible API for the clawdhub CLI: discovery, whoami, search, lists, a skill, resolve and ZIP downloads',
    routes: [
      ...CLAWHUB_WELL_KNOWN_ROUTES,
      'GET /api/v1/whoami',
      'GET /api/v1/search',
      'GET /api/v1/skills',
      'GET /api/v1/skills/{slug}',
      'GET /api/v1/skills/{slug}/versions',
      'GET /api/v1/skills/{slug}/versions/{version}',
      'GET /api/v1/skills/{slug}/file',
      'GET /api/v1/resolve',
      'GET /api/v1/download',
      'DELETE /api/v1/skills/{slug}',
      'POST /api/v1/skills/{slug}/undelete',
      'POST /api/v1/stars/{slug}',
      'DELETE /api/v1/stars/{slug}',
    ],
    // Downloads count as installs (as deliver); APIKEY#: the key's lastUsedAt (whoami).
    table: { read: true, write: [...installWrites, prefix.lookalike, prefix.apiKey] },
    content: 'read',
    // A ZIP too large for a response, kept for a pre-signed link (functions/content/delivery-links.ts).
    contentPuts: [PREPARED_DELIVERIES_PREFIX],
    countsInstalls: true,
    // The catalog (lists) and the search index (search).
    static: 'read',
    memoryMb: 1024,
  },
  {
    name: 'clawhub-publish',
    description: "A ClawHub client's publish: a new skill or a new version, through the publishing service",
    scans: true,
    routes: ['POST /api/v1/skills', 'POST /api/v1/skills/-/upload-url', 'POST /api/v1/skills/-/upload'],
    // As publish and versions: the key's lastUsedAt, the rate limit, the slug claim, the skill;
    // UPLOAD#: the tickets of files sent ahead of a publish; an organisation's audit log (a
    // maintainer's new version of one of its skills).
    table: { read: true, write: [prefix.apiKey, prefix.rateLimit, prefix.slug, prefix.skill, prefix.upload, prefix.audit] },
    content: 'write',
    memoryMb: 1024,
    signing: 'sign',
  },
  {
    name: 'rebuild',
    description: 'The incremental static rebuild, driven by the table stream, then asks for a site build; assembles the whole catalog every minute',
    stream: rebuildSources,
    // SKILL#: repairs a META whose currentVersion a crashed publish left behind; LOCK#: the
    // catalog lease and the site-build window. Scan: the install counters, for the public counts
    // written before a site build is dispatched.
    table: { read: true, scan: true, write: [prefix.skill, prefix.lock] },
    content: 'read',
    static: 'write',
    github: ['site-build'],
    // The whole catalog from its pages, when they changed (a write patches one page and the index).
    schedules: [{ id: 'AssembleCatalog', expression: 'rate(1 minute)' }],
    memoryMb: 1024,
    timeoutSeconds: 120,
    signing: 'publish-keys',
  },
  {
    name: 'install-log',
    description: "Installs from CloudFront's real-time log of discovery downloads (archives and SKILL.md)",
    cdnLog: true,
    // As deliver, plus CDNREQ#: each log record's request id, so a record read twice counts once.
    // Reads: a slug's claim (the log names slugs), the day's secret, the counters' totals.
    table: { read: true, write: [...installWrites, prefix.countedRequest, prefix.lookalike] },
    timeoutSeconds: 60,
  },
  {
    name: 'public-installs',
    description: 'Rewrites the public install counts every 5 minutes, installs alone starting no site build',
    // Reads the skills installed since the last file and their counters; scan: the full pass,
    // once a UTC day; the static bucket: /.well-known/skills-installs.json (and the catalog it lists).
    table: { read: true, scan: true, write: [] },
    static: 'write',
    schedules: [{ id: 'RefreshPublicInstalls', expression: 'rate(5 minutes)' }],
    timeoutSeconds: 120,
  },
  {
    name: 'site-build',
    description: 'Flushes site builds the 5-minute window deferred, with the install counts they show',
    // Scan and the static bucket: the public install counts, written before each dispatch.
    table: { read: true, scan: true, write: [prefix.lock] },
    static: 'write',
    github: ['site-build'],
    schedules: [{ id: 'FlushSiteBuild', expression: 'rate(5 minutes)' }],
    timeoutSeconds: 60,
  },
  {
    name: 'rebuild-shard',
    description: "One shard of the daily full rebuild: its part of the table's skills, each on its own; its output for the finish",
    // SKILL#: a META's currentVersion or owner repaired, and the fingerprints recorded in the skill's partition.
    table: { read: true, scan: true, write: [prefix.skill] },
    content: 'read',
    contentPuts: [SHARD_OUTPUTS_PREFIX],
    static: 'write',
    fullRebuild: 'shard',
    memoryMb: 2048,
    timeoutSeconds: 900,
    // Signs the versions its skills lack a signature of the active key for, and writes keys.json first.
    signing: 'publish-keys',
  },
  {
    name: 'full-rebuild',
    description: "The daily full static rebuild's finish (the safety net under the stream): the shared indexes from every shard, then a site build",
    // LOOKALIKE#: completes the imitation check's index of popular skills. Scan: the whole rebuild in one run, by hand.
    table: { read: true, scan: true, write: [prefix.skill, prefix.lock, prefix.lookalike] },
    content: 'read',
    static: 'write',
    github: ['site-build'],
    fullRebuild: 'finish',
    memoryMb: 2048,
    timeoutSeconds: 900,
    signing: 'publish-keys',
  },
  {
    name: 'observation',
    description: "The observer state machine's last step: records what a version did in the sandbox (cleared or refused) and the skill's current version",
    // SKILL#: the version's behaviour and effects, META's current and default versions. A run that
    // did not finish is started again (it reads the version's files for the run's input).
    table: { read: true, write: [prefix.skill] },
    observer: 'record',
    timeoutSeconds: 30,
  },
];

/** The sandbox image's build context `npm run build` writes (scripts/sandbox-bundle.ts), relative to the repository root. */
export const SANDBOX_CONTEXT_DIR = 'dist/sandbox';

/** The bundle directory of a Lambda, relative to the repository root. */
export const bundleDir = (name: string) => `dist/functions/${name}`;
