import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeFile, sha256Hex } from '#core/bundle';
import { defaultSkillFile } from '#core/default-skill-file';
import { errorStatus, statusOf, type ErrorCode } from '#core/errors';
import { blobKey } from '#functions/content/blobs';
import { createLogger } from '#functions/platform/log';
import { hashSecret } from '#functions/platform/secrets';
import { Client, createTestStack, json, ORIGIN, skillFile, type TestStack, withKey } from '../support/stack.ts';
import { changedKeys, Footprint, snapshotStore, type StoreSnapshot } from './support/store-snapshot.ts';
import { readObjects, scanItems } from './support/store.ts';
import { FIXTURE_SLUGS, type FuzzRequest, requestTo, type Route, ROUTES, toHttp, type World } from './support/write-requests.ts';

/**
 * Property-based fuzzing of every write endpoint (docs/api.md: the error shape and the input rules). Each property run is a
 * batch of generated requests — bodies, headers, credentials and paths — sent in order through
 * the real app against the embedded services. Every response must be below 500 and every error
 * must have the contract's shape with a code from the table. Around each batch the whole store (every
 * DynamoDB item, every object key and ETag of both buckets) is compared: whatever changed must
 * be explained by a request of the batch that succeeded; anything else was changed by a
 * rejected request, which the contract forbids.
 *
 * The clock is frozen for the run. An API key's lastUsedAt is refreshed after a request it
 * authenticated succeeds, at most once a minute; a rejected request leaves it alone like
 * everything else. Freezing the clock (after each key's first use) keeps that hint still, so the
 * comparison needs no exceptions at all.
 */

const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 10_400);
const BATCH = 100;
const SHARE: Record<Route, number> = {
  publish: 0.18,
  versions: 0.17,
  apiKeyCreate: 0.07,
  apiKeyDelete: 0.06,
  devLogin: 0.09,
  logout: 0.06,
  tokenCreate: 0.09,
  tokenDelete: 0.07,
  grantCreate: 0.09,
  grantDelete: 0.07,
  appeal: 0.05,
};

let stack: TestStack;
let world: World;
const logLines: string[] = [];
/** Every secret the service handed out during the run, to look for at rest afterwards. */
const secrets = new Set<string>();
const slugOf = new Map<string, string>();
let sent = 0;
let accepted = 0;
/** How the generated requests were answered, per route: `<route> <status> <code>` → count. */
const answers = new Map<string, number>();
const spent = { requests: 0, snapshots: 0, rebuilds: 0 };
/** Sacrificial things a request used up, to make again before the next batch. */
const usedUp = new Set<'key' | 'token' | 'grant' | 'alice' | 'bob' | 'throwaway'>();
let sacrificialKeyHash = '';
let sacrificialTokenHash = '';
let alice: Client;

beforeAll(async () => {
  stack = await createTestStack(
    { log: createLogger('debug', (line) => logLines.push(line)) },
    // The public install counts are rewritten on a 5-minute timer, not by any request: off here,
    // so what a batch changes is what its requests changed (a run outlasts 5 minutes under load).
    { SKILLPRESS_PUBLISH_LIMIT: '1000000', SKILLPRESS_VERSION_LIMIT: '1000000', SKILLPRESS_INSTALLS_INTERVAL_SECONDS: '86400' },
  );
  stack.setNow(new Date());
  alice = await Client.signIn(stack, 'alice');
  const bob = await Client.signIn(stack, 'bob');
  await Client.signIn(stack, 'carol');
  const aliceKey = await alice.createKey();
  const bobKey = await bob.createKey();
  const revoked = await json(await alice.session('/api/api-keys', { method: 'POST', body: { name: 'revoked' } }));
  expect((await alice.session(`/api/api-keys/${revoked.id}`, { method: 'DELETE' })).status).toBe(204);
  const publish = async (key: string, slug: string, paid = false) => {
    const res = await withKey(stack, key, '/api/publish', {
      body: { name: slug, slug, description: 'fuzz fixture', category: 'testing', paid, files: [skillFile(slug, `# ${slug}`)] },
    });
    expect(res.status).toBe(201);
    const { id } = await json<{ id: string }>(res);
    slugOf.set(id, slug);
    return id;
  };
  world = {
    origin: ORIGIN,
    keys: { alice: aliceKey, bob: bobKey, revoked: revoked.key },
    cookies: { alice: alice.cookie!, bob: bob.cookie!, throwaway: '' },
    skills: {
      aliceFree: await publish(aliceKey, FIXTURE_SLUGS.aliceFree),
      alicePaid: await publish(aliceKey, FIXTURE_SLUGS.alicePaid, true),
      bob: await publish(bobKey, FIXTURE_SLUGS.bob),
    },
    sacrificial: { keyId: '', tokenId: '', grantLogin: 'carol' },
  };
  for (const secret of [aliceKey, bobKey, revoked.key, alice.cookie!, bob.cookie!]) secrets.add(secret.replace(/^skillpress_session=/, ''));
  for (const thing of ['key', 'token', 'grant', 'throwaway'] as const) usedUp.add(thing);
  await replenish();
});

afterAll(() => {
  const table = [...answers].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `  ${k}: ${n}`);
  const ms = Object.entries(spent)
    .map(([k, v]) => `${k} ${Math.round(v)} ms`)
    .join(', ');
  process.stderr.write(`fuzz: ${sent} generated requests, ${accepted} accepted (${ms})\n${table.join('\n')}\n`);
});

/** Makes again what the last batch used up, outside the compared window; true if it wrote. */
async function replenish(): Promise<boolean> {
  const wrote = usedUp.size > 0;
  if (usedUp.has('key')) {
    const created = await json(await alice.session('/api/api-keys', { method: 'POST', body: { name: 'sacrificial' } }));
    world.sacrificial.keyId = created.id;
    sacrificialKeyHash = hashSecret(created.key);
    secrets.add(created.key);
  }
  if (usedUp.has('token')) {
    const created = await json(await alice.session(`/api/skills/${world.skills.alicePaid}/download-tokens`, { method: 'POST', body: {} }));
    world.sacrificial.tokenId = created.id;
    sacrificialTokenHash = hashSecret(created.token);
    secrets.add(created.token);
  }
  if (usedUp.has('grant'))
    expect((await alice.session(`/api/skills/${world.skills.alicePaid}/grants`, { method: 'POST', body: { login: 'carol' } })).status).toBe(201);
  for (const who of ['alice', 'bob', 'throwaway'] as const) {
    if (!usedUp.has(who)) continue;
    const client = await Client.signIn(stack, who === 'throwaway' ? 'dave' : who);
    world.cookies[who] = client.cookie!;
    secrets.add(client.cookie!.replace(/^skillpress_session=/, ''));
    if (who === 'alice') alice = client;
  }
  usedUp.clear();
  return wrote;
}

/** The store as the last batch left it, while nothing has written since. */
let baseline: StoreSnapshot | undefined;
/** Where the log stood when the last batch began: runs recorded since may have written into this batch's window. */
let observedFrom = 0;

async function runBatch(batch: FuzzRequest[]): Promise<void> {
  if (await replenish()) baseline = undefined;
  let t = performance.now();
  const lap = (what: keyof typeof spent) => {
    spent[what] += performance.now() - t;
    t = performance.now();
  };
  await stack.idle();
  lap('rebuilds');
  const before = baseline ?? (await snapshotStore(stack.deps));
  lap('snapshots');
  const footprint = new Footprint();
  const acceptedHere: string[] = [];
  const runsFrom = observedFrom;
  observedFrom = logLines.length;
  for (const request of batch) {
    const { path, init } = toHttp(request, world);
    const res = await stack.request(path, init);
    const text = await res.text();
    sent += 1;
    const code = res.status >= 400 ? (safeParse(text)?.error?.code as string) : '';
    answers.set(`${request.route} ${res.status} ${code}`, (answers.get(`${request.route} ${res.status} ${code}`) ?? 0) + 1);
    const what = `${init.method} ${path} → ${res.status} ${text.slice(0, 300)}`;
    expectErrorShape(res, text, what);
    // The one refusal that writes, by design: a new publisher's flagged version is filed as an
    // appeal for the admins (docs/api.md §7.15), as POST /api/appeals would file it.
    if (code === 'held_for_review') {
      const held = safeParse(typeof init.body === 'string' ? init.body : '') ?? {};
      footprint.allowPrefix('APPEAL#', 'APPEALQUEUE|', 'PENDINGAPPEALS#', 'RL#').allow(...blobKeys(held));
    }
    if (res.status < 400) {
      accepted += 1;
      acceptedHere.push(`${what} ← ${typeof init.body === 'string' ? init.body.slice(0, 300) : ''}`);
      account(path, init, res, text, footprint, what);
    }
  }
  lap('requests');
  await stack.idle();
  lap('rebuilds');
  const after = await snapshotStore(stack.deps);
  baseline = after;
  lap('snapshots');
  allowRecordedRuns(logLines.slice(runsFrom), footprint);
  expect(logLines.filter((line) => line.includes('"level":"error"'))).toEqual([]);
  const stray = changedKeys(before, after).filter((key) => !footprint.covers(key));
  if (stray.length > 0) {
    const now = await Promise.all(
      stray.map(async (key) => {
        const content = key.startsWith('static/') ? Buffer.from((await stack.deps.staticStore.get(key.slice(7))) ?? []).toString() : after.items.get(key);
        return `${key} (${before.objects.get(key) ?? before.items.get(key)?.slice(0, 300)} → ${after.objects.get(key) ?? ''}): ${content?.slice(0, 600)}`;
      }),
    );
    const relisted = await snapshotStore(stack.deps);
    const again = stray.map((key) => `${key}: now ${relisted.objects.get(key) ?? relisted.items.get(key)?.slice(0, 100) ?? 'absent'}`);
    expect.fail(`changed by a rejected request:\n${now.join('\n')}\nlisted again:\n${again.join('\n')}\naccepted in the batch:\n${acceptedHere.join('\n')}`);
  }
}

/** No 5xx, ever; every error is `{"error":{"code","message","details"?}}` with a code of §4. */
function expectErrorShape(res: Response, text: string, what: string): void {
  expect(res.status, what).toBeLessThan(500);
  if (res.status < 400) return;
  expect(res.headers.get('content-type'), what).toMatch(/^application\/json/);
  const body = JSON.parse(text) as { error: { code: ErrorCode; message: string } };
  expect(Object.keys(body), what).toEqual(['error']);
  const { code, message, details: _details, ...rest } = body.error as { code: ErrorCode; message: string; details?: unknown };
  expect(rest, what).toEqual({});
  expect(Object.keys(errorStatus), what).toContain(code);
  expect(statusOf(code), what).toBe(res.status);
  expect(typeof message, what).toBe('string');
}

/**
 * A version with anything to run is run in the sandbox after its publish was answered; whenever
 * that run ends, its outcome is written on the version (behaviour, effects, the count of failed
 * runs), its skill's current version may move, and the skill is rebuilt. That is no request's
 * doing: each recorded run, named in the log as it is recorded, may have changed its own skill and
 * that skill's files, within the batch in whose window (or the one before) its line appeared.
 */
function allowRecordedRuns(lines: string[], footprint: Footprint): void {
  for (const line of lines) {
    const entry = safeParse(line);
    if (entry?.msg !== 'the run of a version is recorded' && entry?.msg !== 'a run of a version did not finish') continue;
    allowRebuildOf(footprint.allowPrefix(`SKILL#${entry.skillId}|`), entry.slug);
  }
}

/**
 * What the rebuild of a skill writes: its own files, the index lock (whose item keeps the last
 * holder's memo) and the shared indexes it patches: the catalog's page and index, and the files
 * under .well-known.
 */
function allowRebuildOf(footprint: Footprint, slug: string): Footprint {
  return footprint
    .allow(`static/registry/${slug}.json`, `static/registry/${slug}/versions.json`, 'LOCK#static-indexes|LOCK')
    .allowPrefix(`static/bundles/${slug}/`, 'static/.well-known/', 'static/catalog/', `static/skills/${slug}/.well-known/`);
}

/** Adds to `footprint` what an accepted request may change, and notes what it used up. */
function account(path: string, init: RequestInit, res: Response, text: string, footprint: Footprint, what: string): void {
  const segments = new URL(path, 'http://x').pathname.split('/').slice(1).map(decodeSegment);
  // The path with its parameters (whatever follows a collection's name) as ':'.
  const route = `${init.method} /${segments.map((s, i) => (['skills', 'api-keys', 'download-tokens', 'grants'].includes(segments[i - 1] ?? '') ? ':' : s)).join('/')}`;
  const body = text ? JSON.parse(text) : undefined;
  const request = typeof init.body === 'string' ? safeParse(init.body) : undefined;
  const skillId = segments[2]!;
  switch (`${route} ${res.status}`) {
    case 'POST /api/publish 201':
      slugOf.set(body.id, body.slug);
      // A publish without files stores the SKILL.md the server wrote for it.
      footprint
        .allowPrefix(`SKILL#${body.id}|`, 'RL#')
        .allow(`SLUG#${body.slug}|SLUG`, ...blobKeys(request.files?.length ? request : { files: [defaultSkillFile(body)] }));
      allowRebuildOf(footprint, body.slug);
      return;
    case 'POST /api/skills/:/versions 201':
      // The version, META and its fingerprint; the author's slot of the version rate limit.
      footprint.allowPrefix(`SKILL#${skillId}|`, 'RL#').allow(...blobKeys(request));
      allowRebuildOf(footprint, slugOf.get(skillId)!);
      return;
    case 'POST /api/api-keys 201':
      secrets.add(body.key);
      footprint.allow(`APIKEY#${hashSecret(body.key)}|APIKEY`);
      return;
    case 'DELETE /api/api-keys/: 204':
      usedUp.add('key');
      footprint.allow(`APIKEY#${sacrificialKeyHash}|APIKEY`);
      return;
    case 'POST /api/auth/dev-login 200': {
      const token = /skillpress_session=([^;]*)/.exec(res.headers.get('set-cookie') ?? '')![1]!;
      secrets.add(token);
      const login = (request.login as string).toLowerCase();
      footprint.allow(`USER#dev:${login}|USER`, `LOGIN#${login}|LOGIN`, `SESSION#${hashSecret(token)}|SESSION`);
      return;
    }
    case 'POST /api/auth/logout 204': {
      const cookie = new Headers(init.headers).get('cookie') ?? '';
      const who = (['alice', 'bob', 'throwaway'] as const).find((w) => world.cookies[w] === cookie);
      expect(who, what).toBeDefined();
      usedUp.add(who!);
      footprint.allow(`SESSION#${hashSecret(cookie.replace(/^skillpress_session=/, ''))}|SESSION`);
      return;
    }
    case 'POST /api/skills/:/download-tokens 201':
      secrets.add(body.token);
      footprint.allow(`TOKEN#${hashSecret(body.token)}|TOKEN`);
      return;
    case 'DELETE /api/skills/:/download-tokens/: 204':
      usedUp.add('token');
      footprint.allow(`TOKEN#${sacrificialTokenHash}|TOKEN`);
      return;
    case 'POST /api/skills/:/grants 201':
      footprint.allow(`GRANT#${skillId}#dev:${(request.login as string).toLowerCase()}|GRANT`);
      return;
    case 'DELETE /api/skills/:/grants/: 204':
      usedUp.add('grant');
      footprint.allowPrefix(`GRANT#${skillId}#`);
      return;
    case 'POST /api/appeals 201':
      // The appeal, its place in the admins' queue and in its author's count of pending appeals, its
      // slot of the publish rate limit, and its files in the private content store.
      footprint.allow(`APPEAL#${body.id}|APPEAL`, ...blobKeys(request.publish ?? {})).allowPrefix('APPEALQUEUE|', 'PENDINGAPPEALS#', 'RL#');
      return;
  }
  // Reads that happen to match a generated method and path change nothing.
  expect(init.method, `unexpected success: ${what}`).toBe('GET');
}

function blobKeys(body: { files?: { filename: string; content: string; encoding?: 'utf8' | 'base64' }[] }): string[] {
  return (body.files ?? []).map((f) => `content/${blobKey(sha256Hex(decodeFile(f)!.bytes))}`);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function safeParse(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * No shrinking (a shrink replays whole batches against a store that has moved on, for minutes),
 * and no printing of the 40-request counterexample: each request's own assertion names it.
 */
const reportFirstFailure = {
  endOnFailure: true,
  reporter: (details: fc.RunDetails<[FuzzRequest[]]>) => {
    if (!details.failed) return;
    const error = details.errorInstance as Error | undefined;
    throw new Error(`${error?.message ?? 'failed'}\n(fast-check seed ${details.seed}; rerun with FUZZ_SEED=${details.seed})`, { cause: error });
  },
};

describe('fuzzing the write endpoints', () => {
  for (const route of ROUTES) {
    const runs = Math.max(1, Math.ceil((TOTAL * SHARE[route]) / BATCH));
    it(`${route}: never a 5xx, always the §4 error shape, and nothing changed by a rejected request (${runs * BATCH} requests)`, async () => {
      await fc.assert(fc.asyncProperty(fc.array(requestTo(route), { minLength: BATCH, maxLength: BATCH }), runBatch), {
        numRuns: runs,
        ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
        ...reportFirstFailure,
      });
    });
  }

  it(`sent at least ${TOTAL >= 10_000 ? '10,000' : TOTAL} generated requests, some of them accepted`, () => {
    expect(sent).toBeGreaterThanOrEqual(Math.min(TOTAL, 10_000));
    expect(accepted).toBeGreaterThan(sent / 50);
  });

  it('rebuilt every skill it accepted into the registry', async () => {
    await stack.idle();
    for (const slug of new Set(slugOf.values())) expect((await stack.request(`/api/registry/${slug}`)).status, slug).toBe(200);
  });

  it('left none of the secrets it handed out in DynamoDB, either bucket or the logs', async () => {
    const items = JSON.stringify(await scanItems(stack.deps.db));
    const objects = [
      ...(await readObjects(stack.deps.s3, stack.config.contentBucket)).values(),
      ...(await readObjects(stack.deps.s3, stack.config.staticBucket)).values(),
    ];
    const logs = logLines.join('\n');
    expect(secrets.size).toBeGreaterThan(10);
    for (const secret of secrets) {
      expect(items.includes(secret), 'in DynamoDB').toBe(false);
      expect(
        objects.some((bytes) => bytes.includes(secret)),
        'in S3',
      ).toBe(false);
      expect(logs.includes(secret), 'in the logs').toBe(false);
    }
  });
});
