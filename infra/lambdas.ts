/**
 * The Lambda functions of the service, one per concern, as data. `scripts/build.ts` bundles each
 * one's entry file `functions/<name>.ts` into `dist/functions/<name>/index.mjs`; `infra/stack.ts`
 * gives it its HTTP routes or triggers and exactly the access declared here (least privilege).
 * Adding a Lambda is adding one entry; a test checks that every route the HTTP app serves is
 * mapped here, and that each Lambda's bundle really answers the routes given to it.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** An API Gateway route key: method and path, with `{param}` placeholders. */
export type RouteKey = `${HttpMethod} /api/${string}`;

export interface LambdaSpec {
  /** The entry `functions/<name>.ts`, the bundle `dist/functions/<name>/`, the function's name. */
  name: string;
  description: string;
  routes?: readonly RouteKey[];
  /** Also answers requests no route matches (API Gateway's `$default`), with the JSON 404. */
  catchAll?: boolean;
  table: {
    /** GetItem, BatchGetItem and Query on the table and its index. */
    read: boolean;
    /** Scan: only the repair paths that walk the whole table. */
    scan?: boolean;
    /** Partition key prefixes of the items it may put, update and delete (`dynamodb:LeadingKeys`). */
    write: readonly string[];
  };
  /** The private content bucket (file bytes by SHA-256). `write` includes read. */
  content?: 'read' | 'write';
  /** The static bucket behind the CDN (registry JSON, bundles, catalog, site). */
  static?: 'read' | 'write';
  /** GitHub settings it is given: the OAuth app (sign-in) or the site workflow (dispatch). */
  github?: readonly ('sign-in' | 'site-build')[];
  /** Consumes the table's stream, only for items whose partition key has one of these prefixes. */
  stream?: { keyPrefixes: readonly string[] };
  /** EventBridge schedules, each delivering `input` as the event. */
  schedules?: readonly { id: string; expression: string; input: Record<string, unknown> }[];
  memoryMb?: number;
  timeoutSeconds?: number;
}

export const lambdas: readonly LambdaSpec[] = [
  {
    name: 'auth',
    description: 'Dev and GitHub sign-in, /api/me, sign-out, health, the OpenAPI document and the JSON 404',
    routes: [
      'GET /api/auth/github',
      'GET /api/auth/github/callback',
      'POST /api/auth/dev-login',
      'GET /api/me',
      'POST /api/auth/logout',
      'GET /api/health',
      'GET /api/openapi.json',
    ],
    catchAll: true,
    table: { read: true, write: ['USER#', 'LOGIN#', 'SESSION#'] },
    github: ['sign-in'],
  },
  {
    name: 'api-keys',
    description: 'Create, list and revoke API keys (session only)',
    routes: ['POST /api/api-keys', 'GET /api/api-keys', 'DELETE /api/api-keys/{id}'],
    table: { read: true, write: ['APIKEY#'] },
  },
  {
    name: 'publish',
    description: 'Publish a new skill at 1.0.0 (API key, rate limited)',
    routes: ['POST /api/publish'],
    // APIKEY#: the key's lastUsedAt; RL#: the publish rate limit; SLUG#: the slug claim.
    table: { read: true, write: ['APIKEY#', 'RL#', 'SLUG#', 'SKILL#'] },
    content: 'write',
    memoryMb: 1024,
  },
  {
    name: 'versions',
    description: 'Publish a new version of a skill (author only)',
    routes: ['POST /api/skills/{id}/versions'],
    table: { read: true, write: ['APIKEY#', 'SKILL#'] },
    content: 'write',
    memoryMb: 1024,
  },
  {
    name: 'site-build',
    description: 'Scheduled site builds: flush deferred dispatches, and a daily build as the safety net',
    table: { read: true, write: ['LOCK#'] },
    github: ['site-build'],
    schedules: [
      { id: 'FlushSiteBuild', expression: 'rate(5 minutes)', input: { action: 'flush' } },
      { id: 'DailySiteBuild', expression: 'cron(15 3 * * ? *)', input: { action: 'full' } },
    ],
    timeoutSeconds: 60,
  },
];

/** The bundle directory of a Lambda, relative to the repository root. */
export const bundleDir = (name: string) => `dist/functions/${name}`;
