import { createHash } from 'node:crypto';
import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { clawhubFingerprint } from '#core/clawhub-fingerprint';
import { fingerprintKey } from '#functions/store/keys';
import { recordAwsCalls } from '../support/aws-calls.ts';
import { establishedPublisher, OBSERVED_WITHIN_MS, untilObserved } from '../support/behaviour.ts';
import { MALICIOUS_SKILL_MD, SUSPICIOUS_SKILL_MD } from '../support/scan-samples.ts';
import { Client, createTestStack, json, type TestStack, withKey } from '../support/stack.ts';

/**
 * The ClawHub-compatible API (docs/api.md §14) through the real app, storage and rebuild: each
 * endpoint's answer in the shape the clawdhub CLI parses, and each refusal in the contract's
 * error shape, never a 500.
 */
let stack: TestStack;
let alice: Client;
let aliceKey: string;
let bobKey: string;

interface Published {
  id: string;
  slug: string;
}

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
const skillMd = (slug: string, description = `The ${slug} skill, for tests`, extra = '') =>
  `---\nname: ${slug}\ndescription: ${description}\n${extra}---\n# ${slug}\n`;
const LOGO = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe]);

/**
 * Every answer of these tests: never a 500, and any error as ClawHub's registry gives one (a line
 * of text, which its clients print), with the contract's code in X-Error-Code. An error's `body`
 * is given in the contract's shape, `{error: {code, message}}`, so the checks read alike.
 */
async function answer(res: Response): Promise<{ status: number; body: any; res: Response }> {
  expect(res.status).toBeLessThan(500);
  const type = res.headers.get('content-type') ?? '';
  if (res.status >= 400) {
    expect(type).toBe('text/plain; charset=utf-8');
    const code = res.headers.get('x-error-code');
    expect(code).toMatch(/^[a-z_]+$/);
    return { status: res.status, body: { error: { code, message: await res.text() } }, res };
  }
  const body = type.includes('json') ? await res.json() : new Uint8Array(await res.arrayBuffer());
  return { status: res.status, body, res };
}

const get = async (path: string, init: RequestInit = {}) => answer(await stack.request(path, init));
const expectError = (got: { status: number; body: any }, status: number, code: string) => {
  expect({ status: got.status, code: got.body.error?.code }).toEqual({ status, code });
};

async function publish(slug: string, files: { filename: string; content: string; encoding?: 'base64' }[], paid = false, key = aliceKey): Promise<Published> {
  const res = await withKey(stack, key, '/api/publish', {
    body: { name: slug, slug, description: `The ${slug} skill`, category: 'testing', paid, files },
  });
  expect(res.status).toBe(201);
  return json(res);
}

async function addVersion(skill: Published, version: string, files: { filename: string; content: string }[], key = aliceKey) {
  const res = await withKey(stack, key, `/api/skills/${skill.id}/versions`, { body: { version, changelog: `Changes in ${version}`, files } });
  expect(res.status).toBe(201);
}

/** A multipart publish as `clawdhub publish` sends it. */
function form(payload: unknown, files: { name: string; bytes: Uint8Array | string }[] = []): FormData {
  const body = new FormData();
  body.set('payload', typeof payload === 'string' ? payload : JSON.stringify(payload));
  for (const file of files)
    body.append('files', new Blob([typeof file.bytes === 'string' ? file.bytes : new Uint8Array(file.bytes)], { type: 'text/plain' }), file.name);
  return body;
}

const clawhubPublish = async (body: FormData | string, key = aliceKey, headers: Record<string, string> = {}) =>
  answer(await stack.request('/api/v1/skills', { method: 'POST', body, headers: { authorization: `Bearer ${key}`, ...headers } }));

let alpha: Published;
let beta: Published;
let paid: Published;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000', SKILLPRESS_ADMINS: 'root' });
  alice = await Client.signIn(stack, 'alice');
  aliceKey = await alice.createKey();
  bobKey = await (await Client.signIn(stack, 'bob')).createKey();
  alpha = await publish('claw-alpha', [
    { filename: 'SKILL.md', content: skillMd('claw-alpha', 'Formats alpha tables') },
    { filename: 'scripts/run.sh', content: '#!/bin/sh\necho alpha\n' },
    { filename: 'assets/logo.png', content: LOGO.toString('base64'), encoding: 'base64' },
  ]);
  beta = await publish('claw-beta', [{ filename: 'SKILL.md', content: skillMd('claw-beta', 'Checks beta spelling') }]);
  paid = await publish('claw-paid', [{ filename: 'SKILL.md', content: skillMd('claw-paid', 'Alpha for money') }], true);
  // Alpha's script runs in the sandbox before alpha has a latest version to list, search or install.
  await untilObserved(stack, aliceKey, alpha.id);
  await stack.idle();
}, OBSERVED_WITHIN_MS);

describe('GET /.well-known/clawhub.json (and clawdhub.json)', () => {
  it.each(['clawhub', 'clawdhub'])('names this origin as the API base at %s.json, cacheable and readable from any origin', async (name) => {
    const { status, body, res } = await get(`/.well-known/${name}.json`);
    expect(status).toBe(200);
    expect(body).toEqual({ apiBase: 'http://localhost' });
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('names the configured site origin behind a CDN', async () => {
    const behind = await createTestStack({}, { SITE_ORIGIN: 'https://skills.example' });
    expect(await json(await behind.request('/.well-known/clawdhub.json'))).toEqual({ apiBase: 'https://skills.example' });
  });
});

describe('who an API key is', () => {
  it('answers GET /api/v1/whoami with the handle clawdhub login shows', async () => {
    const { status, body } = await get('/api/v1/whoami', { headers: { authorization: `Bearer ${aliceKey}` } });
    expect(status).toBe(200);
    expect(body).toEqual({ user: { handle: 'alice', displayName: null, image: null } });
  });

  it('refuses no key, a wrong key and a session with 401', async () => {
    expectError(await get('/api/v1/whoami'), 401, 'unauthenticated');
    expectError(await get('/api/v1/whoami', { headers: { authorization: 'Bearer sk_wrong' } }), 401, 'unauthenticated');
    expectError(await get('/api/v1/whoami', { headers: { cookie: alice.cookie! } }), 401, 'unauthenticated');
  });

  it('answers our own GET /api/me for a key too, as skillpress whoami asks (in our JSON errors, outside /api/v1/)', async () => {
    const { status, body } = await get('/api/me', { headers: { authorization: `Bearer ${aliceKey}` } });
    expect(status).toBe(200);
    expect(body.user).toMatchObject({ login: 'alice', id: 'dev:alice' });
    const refused = await stack.request('/api/me', { headers: { authorization: 'Bearer sk_revoked' } });
    expect([refused.status, (await refused.json()).error.code]).toEqual([401, 'unauthenticated']);
  });
});

describe('GET /api/v1/search', () => {
  it('finds free skills by every word, best first, with epoch-millisecond times', async () => {
    const { status, body } = await get('/api/v1/search?q=alpha');
    expect(status).toBe(200);
    expect(body.results[0]).toEqual({
      slug: 'claw-alpha',
      displayName: 'claw-alpha',
      summary: 'The claw-alpha skill',
      version: '1.0.0',
      score: 1,
      updatedAt: expect.any(Number),
      // clawhub search prints the handle (it printed "unknown owner" without one).
      ownerHandle: 'alice',
      owner: { handle: 'alice', displayName: null, image: null },
    });
    expect(body.results[0].updatedAt).toBeGreaterThan(Date.parse('2020-01-01'));
    // The paid skill's description says alpha too, but a ClawHub client could not install it.
    expect(body.results.map((r: { slug: string }) => r.slug)).not.toContain('claw-paid');
    for (const result of body.results) expect(result.score).toBeGreaterThan(0);
  });

  it('finds nothing without words, and refuses a bad limit with 400', async () => {
    expect((await get('/api/v1/search')).body).toEqual({ results: [] });
    expect((await get('/api/v1/search?q=%20')).body).toEqual({ results: [] });
    expect((await get('/api/v1/search?q=claw&limit=1')).body.results).toHaveLength(1);
    for (const limit of ['0', '201', 'ten', '1.5']) expectError(await get(`/api/v1/search?q=claw&limit=${limit}`), 400, 'invalid_request');
  });
});

/** claw-alpha as ClawHub shows a skill, at its current version `latest`. */
const alphaAt = (latest: string) => ({
  slug: 'claw-alpha',
  displayName: 'claw-alpha',
  summary: 'The claw-alpha skill',
  tags: { latest },
  stats: { downloads: expect.any(Number), installsAllTime: expect.any(Number) },
  createdAt: expect.any(Number),
  updatedAt: expect.any(Number),
});

describe('GET /api/v1/skills', () => {
  it('lists the free skills newest first, each with its current version, in the shape clawdhub explore reads', async () => {
    const { status, body } = await get('/api/v1/skills');
    expect(status).toBe(200);
    // Newest first; the paid skill is left out.
    expect(body.items.map((item: { slug: string }) => item.slug)).toEqual(['claw-beta', 'claw-alpha']);
    expect(body.items.find((item: { slug: string }) => item.slug === 'claw-alpha')).toEqual({
      ...alphaAt('1.0.0'),
      latestVersion: { version: '1.0.0', createdAt: expect.any(Number), changelog: '', license: null, declaredLicense: null },
    });
    expect(body.nextCursor).toBeNull();
  });

  it.each(['updated', 'createdAt'])('pages newest first by %s with a cursor, each skill once', async (sort) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = (await get(`/api/v1/skills?sort=${sort}&limit=1${cursor ? `&cursor=${cursor}` : ''}`)).body;
      expect(page.items.length).toBeLessThanOrEqual(1);
      seen.push(...page.items.map((item: { slug: string }) => item.slug));
      cursor = page.nextCursor;
    } while (cursor);
    const all = (await get(`/api/v1/skills?sort=${sort}&limit=200`)).body.items;
    expect(seen).toEqual(all.map((item: { slug: string }) => item.slug));
    expect(new Set(seen).size).toBe(seen.length);
    const dates = all.map((item: { createdAt: number; updatedAt: number }) => item[sort === 'updated' ? 'updatedAt' : 'createdAt']);
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
  });

  it('ranks by installs for every install order clawdhub knows, without a cursor', async () => {
    // Two clients (addresses): the ranking and the stats are distinct installs.
    for (const from of ['127.6.0.1', '127.6.0.2']) expect((await stack.requestFrom(from, '/api/v1/download?slug=claw-alpha&version=1.0.0')).status).toBe(200);
    await stack.deps.downloads.flush();
    for (const sort of ['downloads', 'installs', 'installsCurrent', 'installsAllTime']) {
      const { body } = await get(`/api/v1/skills?sort=${sort}`);
      expect(body.items[0].slug, sort).toBe('claw-alpha');
      expect(body.items[0].stats.downloads).toBeGreaterThanOrEqual(2);
      expect(body.nextCursor).toBeNull();
    }
  });

  it('refuses orders with no counterpart as not_supported, and a bad cursor, sort or limit as invalid_request', async () => {
    for (const sort of ['stars', 'rating', 'trending']) {
      const refused = await get(`/api/v1/skills?sort=${sort}`);
      expectError(refused, 400, 'not_supported');
      expect(refused.body.error.message).toMatch(/sort by updated, downloads or installs/);
    }
    expectError(await get('/api/v1/skills?sort=random'), 400, 'invalid_request');
    expectError(await get('/api/v1/skills?cursor=bm9wZQ'), 400, 'invalid_request');
    // Well-formed, but never given: a made-up position, or a cursor of another order.
    const madeUp = Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', 'claw-alpha'])).toString('base64url');
    expectError(await get(`/api/v1/skills?cursor=${madeUp}`), 400, 'invalid_request');
    const createdCursor = (await get('/api/v1/skills?sort=createdAt&limit=1')).body.nextCursor;
    const refused = await get(`/api/v1/skills?sort=updated&limit=1&cursor=${createdCursor}`);
    expectError(refused, 400, 'invalid_request');
    expect(refused.body.error.message).toBe('Invalid cursor format');
    // The orders by installs are one page: no cursor was ever given for them, so any is refused.
    for (const sort of ['downloads', 'installs', 'installsCurrent', 'installsAllTime']) {
      for (const cursor of ['abc', createdCursor]) {
        const withCursor = await get(`/api/v1/skills?sort=${sort}&cursor=${cursor}`);
        expectError(withCursor, 400, 'invalid_request');
        expect(withCursor.body.error.message).toBe('Invalid cursor format');
      }
    }
    expectError(await get('/api/v1/skills?limit=0'), 400, 'invalid_request');
  });
});

describe('GET /api/v1/skills/{slug}', () => {
  it('answers a skill with its current version and author', async () => {
    await addVersion(alpha, '1.1.0', [{ filename: 'SKILL.md', content: skillMd('claw-alpha', 'Formats alpha tables, faster') }]);
    const { status, body } = await get('/api/v1/skills/claw-alpha');
    expect(status).toBe(200);
    expect(body).toEqual({
      skill: alphaAt('1.1.0'),
      latestVersion: { version: '1.1.0', createdAt: expect.any(Number), changelog: 'Changes in 1.1.0', license: null, declaredLicense: null },
      owner: { handle: 'alice', displayName: null, image: null },
      moderation: {
        isSuspicious: false,
        isMalwareBlocked: false,
        verdict: 'clean',
        reasonCodes: [],
        summary: null,
        engineVersion: expect.any(String),
        updatedAt: expect.any(Number),
      },
    });
    expect(body.skill.updatedAt).toBeGreaterThanOrEqual(body.skill.createdAt);
    // As ClawHub's registry reads slugs: trimmed, in lower case; and for its owner's handle alone.
    expect((await get('/api/v1/skills/CLAW-ALPHA')).body.skill.slug).toBe('claw-alpha');
    expect((await get('/api/v1/skills/claw-alpha?ownerHandle=%40Alice')).status).toBe(200);
    const other = await get('/api/v1/skills/claw-alpha?ownerHandle=bob');
    expectError(other, 404, 'not_found');
    expect(other.body.error.message).toBe('Skill not found');
  });

  it("gives the license from SKILL.md: MIT-0 as ClawHub's clients read it, any other as declaredLicense", async () => {
    for (const [slug, license, expected] of [
      ['claw-mit0', 'MIT-0', 'MIT-0'],
      ['claw-apache', 'Apache-2.0', null],
    ] as const) {
      await publish(slug, [{ filename: 'SKILL.md', content: skillMd(slug, `The ${slug} skill`, `license: ${license}\n`) }]);
      const { body } = await get(`/api/v1/skills/${slug}`);
      expect(body.latestVersion).toMatchObject({ license: expected, declaredLicense: license });
      expect((await get(`/api/v1/skills/${slug}/versions/1.0.0`)).body.version).toMatchObject({ license: expected, declaredLicense: license });
    }
  });

  it("carries our scan's verdict of the current version in ClawHub's moderation fields, so clawhub install asks for --force", async () => {
    // Flagged on purpose: by an established publisher, whose flagged versions are published rather than held for review.
    const { key } = await establishedPublisher(stack, 'carol');
    const flagged = await publish(
      'claw-flagged',
      [{ filename: 'SKILL.md', content: SUSPICIOUS_SKILL_MD.replace('name: installer', 'name: claw-flagged') }],
      false,
      key,
    );
    const { status, body } = await get('/api/v1/skills/claw-flagged');
    expect(status).toBe(200);
    expect(body.moderation).toEqual({
      isSuspicious: true,
      isMalwareBlocked: false,
      verdict: 'suspicious',
      reasonCodes: ['pipe-to-shell'],
      summary: expect.stringContaining('1 finding'),
      engineVersion: expect.any(String),
      updatedAt: expect.any(Number),
    });
    // The verdict is the current version's: a clean release clears it.
    await addVersion(flagged, '1.1.0', [{ filename: 'SKILL.md', content: skillMd('claw-flagged') }], key);
    expect((await get('/api/v1/skills/claw-flagged')).body.moderation).toMatchObject({ isSuspicious: false, verdict: 'clean', reasonCodes: [] });
  });

  it(
    "carries what the current version did when run: a clean text whose script writes a shell's start-up file stands as suspicious",
    async () => {
      const { key } = await establishedPublisher(stack, 'dora');
      // The file's name is built as the script runs: only the run sees where it writes.
      const script = "import os\nwith open(os.path.join(os.environ['HOME'], '.' + 'bash' + 'rc'), 'a') as rc:\n    rc.write('export TIDY=1\\n')\n";
      const ran = await publish(
        'claw-ran',
        [
          { filename: 'SKILL.md', content: skillMd('claw-ran') },
          { filename: 'scripts/setup.py', content: script },
        ],
        false,
        key,
      );
      const observed = await untilObserved(stack, key, ran.id);
      expect(observed.observation?.verdict).toBe('suspicious');
      const { body } = await get('/api/v1/skills/claw-ran');
      expect(body.moderation).toMatchObject({ isSuspicious: true, isMalwareBlocked: false, verdict: 'suspicious', reasonCodes: ['persistence'] });
      expect(body.moderation.summary).toMatch(/sandbox was flagged for persistence/);
      // The discovery index's readers cannot warn: the skill is not among the shared entries.
      const shared = await json<{ skills: { name: string }[] }>(await stack.request('/.well-known/agent-skills/index.json'));
      expect(shared.skills.map((s) => s.name)).not.toContain('claw-ran');
    },
    OBSERVED_WITHIN_MS + 30_000,
  );

  it('shows a paid skill (it is listed publicly), and answers an unknown slug with 404', async () => {
    expect((await get('/api/v1/skills/claw-paid')).body.skill.slug).toBe('claw-paid');
    expectError(await get('/api/v1/skills/no-such-skill'), 404, 'not_found');
    expectError(await get('/api/v1/skills/Not%20a%20slug'), 404, 'not_found');
  });
});

describe('GET /api/v1/resolve', () => {
  const fingerprintOf = (files: { filename: string; content: string | Uint8Array }[]) =>
    clawhubFingerprint(files.map((f) => ({ filename: f.filename, sha256: sha256(f.content) })));
  /** The fingerprint items of a skill's partition: fingerprint → the version each names. */
  const recordedFingerprints = async (on: TestStack, skillId: string) => {
    const { Items = [] } = await on.deps.db.doc.send(
      new QueryCommand({
        TableName: on.deps.db.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :fp)',
        ExpressionAttributeValues: { ':pk': `SKILL#${skillId}`, ':fp': 'FINGERPRINT#' },
      }),
    );
    return Object.fromEntries(Items.map((item) => [String(item.sk).slice('FINGERPRINT#'.length), item.version]));
  };

  it('names the version whose files an installed folder holds, and the current one', async () => {
    const skill = await publish('claw-resolve', [
      { filename: 'SKILL.md', content: skillMd('claw-resolve') },
      { filename: 'notes.md', content: 'one' },
    ]);
    const first = fingerprintOf([
      { filename: 'SKILL.md', content: skillMd('claw-resolve') },
      { filename: 'notes.md', content: 'one' },
    ]);
    await addVersion(skill, '1.1.0', [
      { filename: 'SKILL.md', content: skillMd('claw-resolve') },
      { filename: 'notes.md', content: 'two' },
    ]);
    const { status, body } = await get(`/api/v1/resolve?slug=claw-resolve&hash=${first}`);
    expect(status).toBe(200);
    expect(body).toEqual({ slug: 'claw-resolve', match: { version: '1.0.0' }, latestVersion: { version: '1.1.0' } });
    // Upper-case hex reads the same.
    expect((await get(`/api/v1/resolve?slug=claw-resolve&hash=${first.toUpperCase()}`)).body.match).toEqual({ version: '1.0.0' });
  });

  it('answers a new skill still being observed with no latest version, as for a skill with nothing installable, so clawhub sync goes on', async () => {
    // An observer that never finishes: the first version stays pending for as long as the test looks.
    const own = await createTestStack({ observer: { async start() {} } });
    const ownKey = await (await Client.signIn(own, 'alice')).createKey();
    const files = [
      { filename: 'SKILL.md', content: skillMd('claw-watched') },
      { filename: 'scripts/run.sh', content: '#!/bin/sh\necho watched\n' },
    ];
    const res = await withKey(own, ownKey, '/api/publish', { body: { name: 'claw-watched', description: 'd', category: 'testing', files } });
    expect(res.status).toBe(201);
    expect(await json(res)).toMatchObject({ behaviour: 'pending' });
    const resolved = await json(await own.request(`/api/v1/resolve?slug=claw-watched&hash=${fingerprintOf(files)}`));
    expect(resolved).toEqual({ slug: 'claw-watched', match: { version: '1.0.0' }, latestVersion: null });
    const unknown = await json(await own.request(`/api/v1/resolve?slug=claw-watched&hash=${'0'.repeat(64)}`));
    expect(unknown).toEqual({ slug: 'claw-watched', match: null, latestVersion: null });
    // The skill page, which an install reads, still says why there is nothing to install yet.
    expect((await own.request('/api/v1/skills/claw-watched')).status).toBe(409);
  });

  it('answers match null for a folder that matches no version (local changes)', async () => {
    const { status, body } = await get(`/api/v1/resolve?slug=claw-alpha&hash=${'0'.repeat(64)}`);
    expect(status).toBe(200);
    expect(body).toEqual({ slug: 'claw-alpha', match: null, latestVersion: { version: '1.1.0' } });
  });

  it('costs one read past the slug, a hit or a miss alike: an unknown hash reads no versions', async () => {
    const own = await createTestStack();
    const ownKey = await (await Client.signIn(own, 'dora')).createKey();
    const files = [{ filename: 'SKILL.md', content: skillMd('claw-cheap') }];
    const res = await withKey(own, ownKey, '/api/publish', { body: { name: 'claw-cheap', description: 'd', category: 'testing', files } });
    expect(res.status).toBe(201);
    const { id } = await json<{ id: string }>(res);
    await own.idle();
    const recorder = recordAwsCalls(own.deps);
    const actions = () => recorder.take().map(({ call }) => call.action);
    const hit = await json(await own.request(`/api/v1/resolve?slug=claw-cheap&hash=${fingerprintOf(files)}`));
    expect(hit.match).toEqual({ version: '1.0.0' });
    // The slug's claim, then META and the fingerprint item together.
    expect(actions()).toEqual(['dynamodb:GetItem', 'dynamodb:BatchGetItem']);
    for (let v = 1; v <= 20; v++) {
      const more = [...files, { filename: 'notes.md', content: `version ${v}` }];
      expect((await withKey(own, ownKey, `/api/skills/${id}/versions`, { body: { version: `1.${v}.0`, files: more } })).status).toBe(201);
    }
    await own.idle();
    recorder.take();
    expect((await json(await own.request(`/api/v1/resolve?slug=claw-cheap&hash=${'1'.repeat(64)}`))).match).toBeNull();
    expect(actions()).toEqual(['dynamodb:GetItem', 'dynamodb:BatchGetItem']);
  });

  it('matches a version whose fingerprint was never recorded (published before they were) once a rebuild records it', async () => {
    const skill = await publish('claw-older', [{ filename: 'SKILL.md', content: skillMd('claw-older') }]);
    const hash = fingerprintOf([{ filename: 'SKILL.md', content: skillMd('claw-older') }]);
    await stack.idle();
    await stack.deps.db.doc.send(new DeleteCommand({ TableName: stack.deps.db.table, Key: fingerprintKey(skill.id, hash) }));
    expect((await get(`/api/v1/resolve?slug=claw-older&hash=${hash}`)).body.match).toBeNull();
    expect((await stack.runtime.rebuildAll()).failed).toEqual([]);
    expect((await get(`/api/v1/resolve?slug=claw-older&hash=${hash}`)).body.match).toEqual({ version: '1.0.0' });
  });

  it('names a version as soon as its publish answers: the publish records its fingerprint', async () => {
    const skill = await publish('claw-fresh', [{ filename: 'SKILL.md', content: skillMd('claw-fresh') }]);
    await stack.idle();
    const files = [
      { filename: 'SKILL.md', content: skillMd('claw-fresh') },
      { filename: 'notes.md', content: 'fresh' },
    ];
    await addVersion(skill, '1.1.0', files);
    expect((await get(`/api/v1/resolve?slug=claw-fresh&hash=${fingerprintOf(files)}`)).body.match).toEqual({ version: '1.1.0' });
    expect(await recordedFingerprints(stack, skill.id)).toEqual({
      [fingerprintOf([{ filename: 'SKILL.md', content: skillMd('claw-fresh') }])]: '1.0.0',
      [fingerprintOf(files)]: '1.1.0',
    });
  });

  it('records each fingerprint once: a re-release of the same files is named instead, and a full rebuild writes what is missing', async () => {
    const own = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
    const ownKey = await (await Client.signIn(own, 'erin')).createKey();
    const one = [{ filename: 'SKILL.md', content: skillMd('claw-again') }];
    const two = [{ filename: 'SKILL.md', content: skillMd('claw-again', 'Another description') }];
    const created = await withKey(own, ownKey, '/api/publish', { body: { name: 'claw-again', description: 'd', category: 'testing', files: one } });
    const { id } = await json<{ id: string }>(created);
    const release = async (version: string, files: typeof one) =>
      expect((await withKey(own, ownKey, `/api/skills/${id}/versions`, { body: { version, files } })).status).toBe(201);
    await release('1.1.0', two);
    await own.idle();
    expect(await recordedFingerprints(own, id)).toEqual({ [fingerprintOf(one)]: '1.0.0', [fingerprintOf(two)]: '1.1.0' });

    // 1.2.0 has 1.0.0's files: its publish moves that one item, and its rebuild finds nothing to write.
    const recorder = recordAwsCalls(own.deps);
    await release('1.2.0', one);
    await own.idle();
    expect(recorder.take().filter(({ call }) => call.action === 'dynamodb:BatchWriteItem')).toEqual([]);
    expect(await recordedFingerprints(own, id)).toEqual({ [fingerprintOf(one)]: '1.2.0', [fingerprintOf(two)]: '1.1.0' });
    expect((await json(await own.request(`/api/v1/resolve?slug=claw-again&hash=${fingerprintOf(one)}`))).match).toEqual({ version: '1.2.0' });

    // A rebuild with nothing missing writes none; the full rebuild puts back an item that is gone.
    await own.deps.db.doc.send(new DeleteCommand({ TableName: own.deps.db.table, Key: fingerprintKey(id, fingerprintOf(two)) }));
    expect((await own.runtime.rebuildAll()).failed).toEqual([]);
    expect(await recordedFingerprints(own, id)).toEqual({ [fingerprintOf(one)]: '1.2.0', [fingerprintOf(two)]: '1.1.0' });
    recorder.take();
    await own.runtime.rebuildAll();
    expect(recorder.take().filter(({ call }) => call.action === 'dynamodb:BatchWriteItem')).toEqual([]);
  });

  it('refuses a malformed or missing hash with 400 and an unknown slug with 404', async () => {
    expectError(await get('/api/v1/resolve?slug=claw-alpha&hash=abc'), 400, 'invalid_request');
    expectError(await get(`/api/v1/resolve?slug=claw-alpha&hash=${'g'.repeat(64)}`), 400, 'invalid_request');
    expectError(await get('/api/v1/resolve?slug=claw-alpha'), 400, 'invalid_request');
    expectError(await get(`/api/v1/resolve?slug=no-such-skill&hash=${'0'.repeat(64)}`), 404, 'not_found');
  });
});

describe('GET /api/v1/download', () => {
  it("answers a version's files as a ZIP, byte for byte, the same bytes every time", async () => {
    const { status, body, res } = await get('/api/v1/download?slug=claw-alpha&version=1.0.0');
    expect(status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="claw-alpha-1.0.0.zip"');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const files = unzipSync(body);
    expect(Object.keys(files).sort()).toEqual(['SKILL.md', 'assets/logo.png', 'scripts/run.sh']);
    expect(Buffer.from(files['SKILL.md']!).toString()).toBe(skillMd('claw-alpha', 'Formats alpha tables'));
    expect(Buffer.from(files['scripts/run.sh']!).toString()).toBe('#!/bin/sh\necho alpha\n');
    expect(Buffer.from(files['assets/logo.png']!).equals(LOGO)).toBe(true);
    const again = (await get('/api/v1/download?slug=claw-alpha&version=1.0.0')).body;
    expect(Buffer.from(again).equals(Buffer.from(body))).toBe(true);
  });

  it('answers the current version without one, or for the latest tag', async () => {
    for (const query of ['slug=claw-alpha', 'slug=claw-alpha&tag=latest']) {
      const files = unzipSync((await get(`/api/v1/download?${query}`)).body);
      expect(Object.keys(files)).toEqual(['SKILL.md']);
      expect(Buffer.from(files['SKILL.md']!).toString()).toContain('faster');
    }
  });

  it('counts each download as one install by ClawHub’s CLI (source cli, client clawhub), and a HEAD as none', async () => {
    const before = (await json(await alice.session(`/api/analytics/${beta.id}`))).byClient.clawhub;
    expect((await get('/api/v1/download?slug=claw-beta')).status).toBe(200);
    const head = await stack.request('/api/v1/download?slug=claw-beta', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const after = await json(await alice.session(`/api/analytics/${beta.id}`));
    expect(after.byClient.clawhub).toBe(before + 1);
    expect(after.bySource).toMatchObject({ cli: before + 1, api: 0 });
  });

  it('never gives a paid skill away: 402 payment_required, counting nothing', async () => {
    const refused = await get('/api/v1/download?slug=claw-paid');
    expectError(refused, 402, 'payment_required');
    expect(JSON.stringify(refused.body)).not.toContain('Alpha for money');
    expect((await json(await alice.session(`/api/analytics/${paid.id}`))).total).toBe(0);
  });

  it('refuses an unknown skill or version with 404, a bad version with 400, and another tag as not_supported', async () => {
    expectError(await get('/api/v1/download?slug=no-such-skill'), 404, 'not_found');
    expectError(await get('/api/v1/download?slug=claw-alpha&version=9.9.9'), 404, 'not_found');
    expectError(await get('/api/v1/download?slug=claw-alpha&version=v1'), 400, 'invalid_request');
    expectError(await get('/api/v1/download'), 400, 'invalid_request');
    expectError(await get('/api/v1/download?slug=claw-alpha&tag=beta'), 400, 'not_supported');
  });

  it('refuses a quarantined skill with 403, on every ClawHub read', async () => {
    const skill = await publish('claw-bad', [{ filename: 'SKILL.md', content: skillMd('claw-bad') }]);
    const root = await Client.signIn(stack, 'root');
    expect((await root.session(`/api/admin/skills/${skill.id}/quarantine`, { method: 'POST', body: { reason: 'steals keys' } })).status).toBe(200);
    expectError(await get('/api/v1/download?slug=claw-bad'), 403, 'quarantined');
    expectError(await get('/api/v1/skills/claw-bad'), 403, 'quarantined');
    expectError(await get(`/api/v1/resolve?slug=claw-bad&hash=${'0'.repeat(64)}`), 403, 'quarantined');
  });
});

describe('POST /api/v1/skills (clawdhub publish)', () => {
  const files = (slug: string, version: string) => [
    { name: 'SKILL.md', bytes: skillMd(slug, `Publishes ${slug} from ClawHub`, 'metadata:\n  category: Data Tools\n') },
    { name: 'scripts/run.sh', bytes: `#!/bin/sh\necho ${version}\n` },
    { name: 'assets/logo.png', bytes: LOGO },
  ];

  it(
    'publishes a new skill at the version given, described by its SKILL.md, with the files byte for byte',
    async () => {
      const { status, body, res } = await clawhubPublish(
        form({ slug: 'claw-new', displayName: 'Claw New', version: '0.1.0', changelog: 'First', tags: ['latest'] }, files('claw-new', '0.1.0')),
      );
      expect(status).toBe(201);
      expect(body).toEqual({
        ok: true,
        skillId: expect.any(String),
        versionId: 'claw-new@0.1.0',
        slug: 'claw-new',
        version: '0.1.0',
        publicationStatus: 'published',
      });
      expect(res.headers.get('ratelimit-remaining')).not.toBeNull();
      // Its script runs in the sandbox before it is delivered by default.
      await untilObserved(stack, aliceKey, body.skillId, '0.1.0');
      const delivered = await json(await stack.request(`/api/deliver/${body.skillId}`));
      expect(delivered).toMatchObject({ slug: 'claw-new', version: '0.1.0' });
      expect(delivered.files).toEqual([
        { filename: 'SKILL.md', content: skillMd('claw-new', 'Publishes claw-new from ClawHub', 'metadata:\n  category: Data Tools\n') },
        { filename: 'assets/logo.png', content: LOGO.toString('base64'), encoding: 'base64' },
        { filename: 'scripts/run.sh', content: '#!/bin/sh\necho 0.1.0\n' },
      ]);
      await stack.idle();
      expect(await json(await stack.request('/api/registry/claw-new'))).toMatchObject({
        name: 'Claw New',
        description: 'Publishes claw-new from ClawHub',
        category: 'data-tools',
        currentVersion: '0.1.0',
        paid: false,
      });
    },
    OBSERVED_WITHIN_MS,
  );

  it('files a new skill whose SKILL.md names no category under general, and lists a block-scalar description on one line', async () => {
    const md = '---\nname: claw-plain\ndescription: >\n  Folded over\n  two lines.\n---\n# Plain\n';
    const { status } = await clawhubPublish(
      form({ slug: 'claw-plain', displayName: 'Claw Plain', version: '1.0.0', changelog: '' }, [{ name: 'SKILL.md', bytes: md }]),
    );
    expect(status).toBe(201);
    await stack.idle();
    expect(await json(await stack.request('/api/registry/claw-plain'))).toMatchObject({ category: 'general', description: 'Folded over two lines.' });
  });

  it(
    'publishes a new version of an existing skill, which resolve then names by its fingerprint',
    async () => {
      const sent = files('claw-new', '0.2.0');
      const { status, body } = await clawhubPublish(form({ slug: 'claw-new', displayName: 'Claw New', version: '0.2.0', changelog: 'Second' }, sent));
      expect(status).toBe(201);
      expect(body.versionId).toBe('claw-new@0.2.0');
      await untilObserved(stack, aliceKey, body.skillId, '0.2.0');
      const page = (await get('/api/v1/skills/claw-new')).body;
      expect(page.latestVersion).toMatchObject({ version: '0.2.0', changelog: 'Second' });
      const hash = clawhubFingerprint(sent.map((f) => ({ filename: f.name, sha256: sha256(f.bytes) })));
      expect((await get(`/api/v1/resolve?slug=claw-new&hash=${hash}`)).body.match).toEqual({ version: '0.2.0' });
    },
    OBSERVED_WITHIN_MS,
  );

  it('refuses what our own publish refuses: a taken version, a skill of another author, a malicious file, a prerelease first version', async () => {
    const again = await clawhubPublish(form({ slug: 'claw-new', displayName: 'Claw New', version: '0.2.0', changelog: '' }, files('claw-new', '0.2.0')));
    expectError(again, 409, 'version_exists');
    expectError(
      await clawhubPublish(form({ slug: 'claw-new', displayName: 'Mine', version: '9.0.0', changelog: '' }, files('claw-new', '9')), bobKey),
      403,
      'forbidden',
    );
    const malicious = await clawhubPublish(
      form({ slug: 'claw-evil', displayName: 'Evil', version: '1.0.0', changelog: '' }, [
        { name: 'SKILL.md', bytes: MALICIOUS_SKILL_MD.replace('name: setup', 'name: claw-evil') },
      ]),
    );
    expectError(malicious, 422, 'content_rejected');
    expectError(await get('/api/v1/skills/claw-evil'), 404, 'not_found');
    expectError(
      await clawhubPublish(form({ slug: 'claw-pre', displayName: 'Pre', version: '1.0.0-rc.1', changelog: '' }, files('claw-pre', 'rc'))),
      400,
      'invalid_request',
    );
    expectError(
      await clawhubPublish(form({ slug: 'claw-pre', displayName: 'Pre', version: 'one', changelog: '' }, files('claw-pre', 'x'))),
      400,
      'invalid_request',
    );
  });

  it('refuses a new skill whose SKILL.md has no description, saying where it is read from', async () => {
    const refused = await clawhubPublish(
      form({ slug: 'claw-mute', displayName: 'Mute', version: '1.0.0', changelog: '' }, [{ name: 'SKILL.md', bytes: '# No front matter\n' }]),
    );
    expectError(refused, 400, 'invalid_request');
    expect(refused.body.error.message).toMatch(/SKILL\.md needs a description/);
  });

  it('asks for an API key first: none, a wrong one or a session is 401', async () => {
    const body = form({ slug: 'claw-anon', displayName: 'Anon', version: '1.0.0', changelog: '' }, files('claw-anon', '1'));
    expectError(await answer(await stack.request('/api/v1/skills', { method: 'POST', body })), 401, 'unauthenticated');
    expectError(await clawhubPublish(body, 'sk_wrong'), 401, 'unauthenticated');
    expectError(
      await answer(await stack.request('/api/v1/skills', { method: 'POST', body, headers: { cookie: alice.cookie!, origin: 'http://localhost' } })),
      401,
      'unauthenticated',
    );
  });

  it('refuses a body that is neither JSON nor a multipart form with 415, and a broken one with 400', async () => {
    expectError(await clawhubPublish(JSON.stringify({ slug: 'claw-json' }), aliceKey, { 'content-type': 'application/json' }), 400, 'invalid_request');
    expectError(await clawhubPublish('payload=x', aliceKey, { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
    expectError(await clawhubPublish('--nope\r\ngarbage', aliceKey, { 'content-type': 'multipart/form-data; boundary=----none' }), 400, 'invalid_request');
  });

  it('refuses a missing or malformed payload, missing fields, other tags, forks and no files with 400', async () => {
    const valid = { slug: 'claw-odd', displayName: 'Odd', version: '1.0.0', changelog: '' };
    const some = files('claw-odd', '1');
    const noPayload = new FormData();
    noPayload.append('files', new Blob(['x']), 'SKILL.md');
    const cases: [string, FormData, string][] = [
      ['no payload', noPayload, 'payload'],
      ['payload not JSON', form('{nope', some), 'payload'],
      [
        'payload a file',
        (() => {
          const f = form(valid, some);
          f.set('payload', new Blob(['{}']), 'payload.json');
          return f;
        })(),
        'payload',
      ],
      ['no version', form({ ...valid, version: undefined }, some), 'version'],
      ['a bad slug', form({ ...valid, slug: 'Not A Slug' }, some), 'slug'],
      ['an unknown field', form({ ...valid, stars: 5 }, some), ''],
      ['another tag', form({ ...valid, tags: ['latest', 'beta'] }, some), 'tags'],
      ['a fork', form({ ...valid, forkOf: { slug: 'claw-alpha' } }, some), 'forkOf'],
      ['no files', form(valid), 'files'],
      [
        'a text part for a file',
        (() => {
          const f = form(valid, some);
          f.append('files', 'not a file');
          return f;
        })(),
        'files',
      ],
      ['a bad file name', form(valid, [...some, { name: 'a/../b.md', bytes: 'x' }]), 'files'],
    ];
    for (const [what, body, field] of cases) {
      const refused = await clawhubPublish(body);
      expect({ what, status: refused.status, code: refused.body.error?.code }).toEqual({ what, status: 400, code: 'invalid_request' });
      expect(refused.body.error.message, what).toContain(field);
    }
    expectError(await get('/api/v1/skills/claw-odd'), 404, 'not_found');
  });
});

describe('publishing as clawhub 0.23 does: each file sent ahead, then JSON', () => {
  const post = async (path: string, body: unknown, key = aliceKey, type = 'application/json') =>
    answer(
      await stack.request(path, {
        method: 'POST',
        body: body instanceof Uint8Array ? new Uint8Array(body) : typeof body === 'string' ? body : JSON.stringify(body),
        headers: { authorization: `Bearer ${key}`, 'content-type': type },
      }),
    );

  /** Announces and sends one file, as the client does; the file entry its publish then names. */
  async function upload(path: string, bytes: Uint8Array | string, key = aliceKey) {
    const data = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
    const announced = await post('/api/v1/skills/-/upload-url', { path, size: data.byteLength, sha256: sha256(data), contentType: 'text/plain' }, key);
    expect(announced.status, JSON.stringify(announced.body)).toBe(200);
    const { uploadUrl, uploadTicket } = announced.body;
    expect(uploadUrl).toMatch(/^http:\/\/localhost\/api\/v1\/skills\/-\/upload\?ticket=/);
    const sent = await post(new URL(uploadUrl).pathname + new URL(uploadUrl).search, data, key, 'text/plain');
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ storageId: sha256(data) });
    return { path, size: data.byteLength, sha256: sha256(data), storageId: sha256(data), contentType: 'text/plain', uploadTicket };
  }

  it('publishes a new skill, then a version, from uploaded files, byte for byte', async () => {
    const slug = 'claw-json';
    const files = [await upload('SKILL.md', skillMd(slug, 'Sent ahead')), await upload('assets/logo.png', LOGO)];
    const body = {
      slug,
      displayName: 'Claw JSON',
      ownerHandle: 'alice',
      version: '1.0.0',
      changelog: 'First',
      acceptLicenseTerms: true,
      tags: ['latest'],
      categories: ['Data Tools'],
      files,
    };
    const created = await post('/api/v1/skills', body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toEqual({
      ok: true,
      skillId: expect.any(String),
      versionId: 'claw-json@1.0.0',
      slug,
      version: '1.0.0',
      publicationStatus: 'published',
    });
    const doc = await eventuallyRegistry(slug);
    expect(doc).toMatchObject({ category: 'data-tools', description: 'Sent ahead', currentVersion: '1.0.0' });
    const delivered = await json(await stack.request(`/api/deliver/${created.body.skillId}`));
    expect(delivered.files.find((f: { filename: string }) => f.filename === 'assets/logo.png').content).toBe(LOGO.toString('base64'));

    const next = [await upload('SKILL.md', skillMd(slug, 'Sent ahead')), await upload('notes.md', 'two')];
    const versioned = await post('/api/v1/skills', { ...body, version: '1.0.1', files: next });
    expect(versioned.status, JSON.stringify(versioned.body)).toBe(201);
  });

  it('takes a file only through a ticket of the caller whose bytes arrived: a digest alone brings in nothing', async () => {
    const slug = 'claw-borrow';
    const skill = await upload('SKILL.md', skillMd(slug));
    // The paid skill's SKILL.md is in the content store, and its digest is public: naming it is not enough.
    const paidDoc = await json(await stack.request('/api/registry/claw-paid'));
    const paidFile = paidDoc.files[0];
    const announced = await post('/api/v1/skills/-/upload-url', { path: 'stolen.md', size: paidFile.size, sha256: paidFile.sha256 });
    const stolen = { path: 'stolen.md', size: paidFile.size, sha256: paidFile.sha256, storageId: paidFile.sha256, uploadTicket: announced.body.uploadTicket };
    const base = { slug, displayName: 'Borrow', version: '1.0.0', changelog: '' };
    for (const files of [[skill, stolen], [skill, { ...stolen, uploadTicket: 'made-up' }], [{ ...skill, path: 'OTHER.md' }]]) {
      const refused = await post('/api/v1/skills', { ...base, files });
      expectError(refused, 400, 'invalid_request');
      expect(refused.body.error.message).toContain('was not uploaded with this ticket');
    }
    // Bob cannot use Alice's ticket, nor send bytes to it.
    const bobs = await post('/api/v1/skills', { ...base, files: [skill] }, bobKey);
    expectError(bobs, 400, 'invalid_request');
    expectError(await post(`/api/v1/skills/-/upload?ticket=${skill.uploadTicket}`, 'x', bobKey, 'text/plain'), 404, 'not_found');
    expectError(await get(`/api/v1/skills/${slug}`), 404, 'not_found');
  });

  it('refuses bytes that are not what the ticket names, a handle that is not the caller, and a migration or fork', async () => {
    const announced = await post('/api/v1/skills/-/upload-url', { path: 'SKILL.md', size: 3, sha256: sha256('abc') });
    const ticketUrl = `/api/v1/skills/-/upload?ticket=${announced.body.uploadTicket}`;
    expectError(await post(ticketUrl, 'abcd', aliceKey, 'text/plain'), 400, 'invalid_request');
    expectError(await post(ticketUrl, 'abd', aliceKey, 'text/plain'), 400, 'invalid_request');
    expectError(await post('/api/v1/skills/-/upload-url', { path: 'SKILL.md', size: 2 * 1024 * 1024, sha256: sha256('abc') }), 400, 'invalid_request');
    const file = await upload('SKILL.md', skillMd('claw-handle'));
    const base = { slug: 'claw-handle', displayName: 'Handle', version: '1.0.0', files: [file] };
    const asBob = await post('/api/v1/skills', { ...base, ownerHandle: 'bob' });
    expectError(asBob, 403, 'forbidden');
    expect(asBob.body.error.message).toBe('Forbidden');
    expectError(await post('/api/v1/skills', { ...base, migrateOwner: true }), 400, 'invalid_request');
    expectError(await post('/api/v1/skills', { ...base, forkOf: { slug: 'claw-alpha' } }), 400, 'invalid_request');
    expectError(await post('/api/v1/skills/-/upload-url', { path: 'x', size: 1, sha256: sha256('x') }, 'sk_wrong'), 401, 'unauthenticated');
  });

  it('takes files only from a key that may publish: a read-only key can neither announce nor send them, and stores nothing', async () => {
    const created = await alice.session('/api/api-keys', { method: 'POST', body: { name: 'reader', scopes: ['read'] } });
    const readKey = ((await created.json()) as { key: string }).key;
    const bytes = 'read only';
    const refused = await post('/api/v1/skills/-/upload-url', { path: 'SKILL.md', size: bytes.length, sha256: sha256(bytes) }, readKey);
    expectError(refused, 403, 'insufficient_scope');
    expect(refused.body.error.message).toBe('This API key lacks the publish scope');
    // A ticket announced with a publishing key is still not a way in for the read-only one.
    const announced = await post('/api/v1/skills/-/upload-url', { path: 'SKILL.md', size: bytes.length, sha256: sha256(bytes) });
    expectError(await post(`/api/v1/skills/-/upload?ticket=${announced.body.uploadTicket}`, bytes, readKey, 'text/plain'), 403, 'insufficient_scope');
    const sent = await post(`/api/v1/skills/-/upload?ticket=${announced.body.uploadTicket}`, bytes, aliceKey, 'text/plain');
    expect(sent.status).toBe(200);
  });
});

describe('versions, files and owners, as clawhub inspect and install --version read them', () => {
  it('lists versions newest first, pages them, and answers one with its files', async () => {
    const skill = await publish('claw-versions', [
      { filename: 'SKILL.md', content: skillMd('claw-versions') },
      { filename: 'run.sh', content: 'echo 1\n' },
    ]);
    for (const v of ['1.1.0', '1.2.0']) await addVersion(skill, v, [{ filename: 'SKILL.md', content: skillMd('claw-versions', `v${v}`) }]);
    const all = (await get('/api/v1/skills/claw-versions/versions')).body;
    expect(all.items.map((i: { version: string }) => i.version)).toEqual(['1.2.0', '1.1.0', '1.0.0']);
    expect(all.items[0]).toEqual({ version: '1.2.0', createdAt: expect.any(Number), changelog: 'Changes in 1.2.0' });
    const first = (await get('/api/v1/skills/claw-versions/versions?limit=2')).body;
    expect(first.items).toHaveLength(2);
    const second = (await get(`/api/v1/skills/claw-versions/versions?limit=2&cursor=${first.nextCursor}`)).body;
    expect(second).toEqual({ items: [expect.objectContaining({ version: '1.0.0' })], nextCursor: null });
    expectError(await get('/api/v1/skills/claw-versions/versions?cursor=bm9wZQ'), 400, 'invalid_request');

    const one = (await get('/api/v1/skills/claw-versions/versions/1.0.0')).body;
    expect(one).toEqual({
      skill: { slug: 'claw-versions', displayName: 'claw-versions' },
      version: {
        version: '1.0.0',
        createdAt: expect.any(Number),
        changelog: '',
        license: null,
        declaredLicense: null,
        files: [
          { path: 'SKILL.md', size: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/), contentType: 'text/markdown; charset=utf-8' },
          { path: 'run.sh', size: 7, sha256: sha256('echo 1\n'), contentType: null },
        ],
      },
    });
    const missing = await get('/api/v1/skills/claw-versions/versions/9.9.9');
    expectError(missing, 404, 'not_found');
    expect(missing.body.error.message).toBe('Version not found');
  });

  it('shows one text file of a free skill, never of a paid one', async () => {
    const text = await stack.request('/api/v1/skills/claw-versions/file?path=run.sh&version=1.0.0');
    expect([text.status, text.headers.get('content-type'), await text.text()]).toEqual([200, 'text/plain; charset=utf-8', 'echo 1\n']);
    expectError(await get('/api/v1/skills/claw-versions/file?path=nope.md'), 404, 'not_found');
    expectError(await get('/api/v1/skills/claw-paid/file?path=SKILL.md'), 402, 'payment_required');
  });

  it('answers only for the owner a client names, in ClawHub words when there is none', async () => {
    const notFound = await get('/api/v1/download?slug=claw-alpha&ownerHandle=bob');
    expectError(notFound, 404, 'not_found');
    expect(notFound.body.error.message).toBe('Skill not found');
    expect((await get('/api/v1/download?slug=claw-alpha&ownerHandle=alice&version=1.0.0')).status).toBe(200);
    expectError(await get(`/api/v1/resolve?slug=claw-alpha&ownerHandle=bob&hash=${'0'.repeat(64)}`), 404, 'not_found');
    const unknown = await get('/api/v1/skills/no-such-skill');
    expect(unknown.body.error.message).toBe('Skill not found');
    const noKey = await stack.request('/api/v1/whoami');
    expect([noKey.status, await noKey.text(), noKey.headers.get('x-error-code')]).toEqual([401, 'Unauthorized', 'unauthenticated']);
  });
});

/** A multipart body of `parts` tiny file parts, pulled chunk by chunk; `pulled()` says how many bytes the server read. */
function manyParts(parts: number, boundary = 'b'): { body: ReadableStream<Uint8Array>; total: number; pulled: () => number } {
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="payload"\r\n\r\n{"slug":"claw-many","displayName":"Many","version":"1.0.0"}\r\n`,
  );
  const part = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="a"\r\n\r\n\r\n`);
  const tail = Buffer.from(`--${boundary}--\r\n`);
  const chunks: Buffer[] = [head];
  for (let i = 0; i < parts; i += 500) chunks.push(Buffer.concat(Array.from({ length: Math.min(500, parts - i) }, () => part)));
  chunks.push(tail);
  let pulled = 0;
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next++];
      if (!chunk) return controller.close();
      pulled += chunk.byteLength;
      controller.enqueue(new Uint8Array(chunk));
    },
  });
  return { body, total: chunks.reduce((n, c) => n + c.byteLength, 0), pulled: () => pulled };
}

describe('POST /api/v1/skills reads its form as it streams in', () => {
  // With its length, as clients send a form: the body then streams past the app's size check.
  const send = ({ body, total }: { body: ReadableStream<Uint8Array>; total: number }, boundary = 'b') =>
    stack.request('/api/v1/skills', {
      method: 'POST',
      body,
      duplex: 'half',
      headers: { authorization: `Bearer ${aliceKey}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(total) },
    } as RequestInit);

  it('stops at the 201st file of 80,000 tiny parts with 413, reading no further', async () => {
    const form = manyParts(80_000);
    const got = await answer(await send(form));
    expectError(got, 413, 'payload_too_large');
    expect(got.body.error.message).toContain('At most 200 files');
    // The body is ~5 MB of parts, under the body limit: the file limit applies after the first chunks, not after all of them.
    expect(form.pulled()).toBeLessThan(form.total / 10);
    expectError(await get('/api/v1/skills/claw-many'), 404, 'not_found');
  });

  it('refuses many text parts, an oversized file and an oversized payload with 413', async () => {
    const fields = new FormData();
    for (let i = 0; i < 50; i++) fields.append(`field${i}`, 'x');
    expectError(await clawhubPublish(fields), 413, 'payload_too_large');
    const big = form({ slug: 'claw-big', displayName: 'Big', version: '1.0.0' }, [{ name: 'SKILL.md', bytes: 'x'.repeat(1024 * 1024 + 1) }]);
    expectError(await clawhubPublish(big), 413, 'payload_too_large');
    expectError(await clawhubPublish(form(`{"slug":"claw-big","changelog":"${'x'.repeat(200_000)}"}`)), 413, 'payload_too_large');
  });

  it('keeps non-ASCII file names as sent', async () => {
    const slug = 'claw-unicode';
    const got = await clawhubPublish(
      form({ slug, displayName: 'Unicode', version: '1.0.0' }, [
        { name: 'SKILL.md', bytes: skillMd(slug) },
        { name: 'docs/résumé.md', bytes: 'ok' },
      ]),
    );
    expect(got.status, JSON.stringify(got.body)).toBe(201);
    const doc = await eventuallyRegistry(slug);
    expect(doc.files.map((f: { filename: string }) => f.filename)).toContain('docs/résumé.md');
  });
});

async function eventuallyRegistry(slug: string): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const res = await stack.request(`/api/registry/${slug}`);
    if (res.status === 200) return res.json();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${slug} never appeared`);
}

describe('ClawHub endpoints with no counterpart', () => {
  it('answers delete, undelete, star and unstar with 400 not_supported, changing nothing', async () => {
    const cases: [string, string, RegExp][] = [
      ['DELETE', '/api/v1/skills/claw-alpha', /no delete/],
      ['POST', '/api/v1/skills/claw-alpha/undelete', /none to restore/],
      ['POST', '/api/v1/stars/claw-alpha', /no stars/],
      ['DELETE', '/api/v1/stars/claw-alpha', /no stars/],
    ];
    for (const [method, path, why] of cases) {
      const refused = await get(path, { method, headers: { authorization: `Bearer ${aliceKey}` } });
      expectError(refused, 400, 'not_supported');
      expect(refused.body.error.message).toMatch(why);
    }
    expect((await get('/api/v1/skills/claw-alpha')).status).toBe(200);
  });
});

describe('the discovery index lists a SKILL.md alone as itself', () => {
  it("lists a single-file skill as skill-md, pointing at its SKILL.md with that file's digest", async () => {
    await stack.idle();
    const index = await json(await stack.request('/.well-known/agent-skills/index.json'));
    const entry = index.skills.find((s: { name: string }) => s.name === 'claw-beta');
    expect(entry).toEqual({
      name: 'claw-beta',
      type: 'skill-md',
      // As for archives: the SKILL.md's own description.
      description: 'Checks beta spelling',
      url: '/.well-known/agent-skills/claw-beta/1.0.0/SKILL.md',
      digest: `sha256:${sha256(skillMd('claw-beta', 'Checks beta spelling'))}`,
      version: '1.0.0',
    });
    const file = await stack.request(entry.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(file.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(file.headers.get('access-control-allow-origin')).toBe('*');
    expect(await file.text()).toBe(skillMd('claw-beta', 'Checks beta spelling'));
  });

  it('keeps an archive for a skill with more files, and moves between the two as versions do', async () => {
    await stack.idle();
    const index = await json(await stack.request('/.well-known/agent-skills/index.json'));
    const alphaEntry = index.skills.find((s: { name: string }) => s.name === 'claw-alpha');
    // claw-alpha 1.1.0 is its SKILL.md alone; claw-new is three files.
    expect(alphaEntry).toMatchObject({ type: 'skill-md', version: '1.1.0' });
    expect(index.skills.find((s: { name: string }) => s.name === 'claw-new')).toMatchObject({
      type: 'archive',
      url: '/.well-known/agent-skills/claw-new/0.2.0.tar.gz',
    });
  });
});
