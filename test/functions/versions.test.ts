import { createHash } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { getSkill, listVersions } from '#functions/store/skills';
import { recordAwsCalls } from '../support/aws-calls.ts';
import { Client, createTestStack, json, skillBody, skillFile, type TestStack, withKey } from '../support/stack.ts';

let stack: TestStack;
let alice: Client;
let aliceKey: string;
let bobKey: string;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
  alice = await Client.signIn(stack, 'alice');
  aliceKey = await alice.createKey();
  bobKey = await (await Client.signIn(stack, 'bob')).createKey();
});

async function newSkill(overrides: Record<string, unknown> = {}): Promise<{ id: string; slug: string }> {
  const res = await withKey(stack, aliceKey, '/api/publish', { body: skillBody(overrides) });
  expect(res.status).toBe(201);
  return json(res);
}

const version = (slug: string, v: string, extra: Record<string, unknown> = {}) => ({
  version: v,
  changelog: `Changes in ${v}`,
  files: [skillFile(slug, `# v${v}`)],
  ...extra,
});

describe('POST /api/skills/<id>/versions', () => {
  it('publishes a new version with an API key: 201, files hashed, currentVersion updated', async () => {
    const { id, slug } = await newSkill();
    const res = await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: version(slug, '1.1.0') });
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({
      skillId: id,
      version: '1.1.0',
      changelog: 'Changes in 1.1.0',
      publishedAt: expect.any(String),
      files: [{ filename: 'SKILL.md', size: Buffer.byteLength(skillFile(slug, '# v1.1.0').content), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }],
      currentVersion: '1.1.0',
      scan: { verdict: 'clean', rulesVersion: expect.any(String), findings: [] },
      behaviour: 'cleared',
    });
    expect((await getSkill(stack.deps.db, id))!.currentVersion).toBe('1.1.0');
  });

  it('publishes with a session from the site origin', async () => {
    const { id, slug } = await newSkill();
    const res = await alice.session(`/api/skills/${id}/versions`, { method: 'POST', body: version(slug, '2.0.0') });
    expect(res.status).toBe(201);
    expect((await json(res)).currentVersion).toBe('2.0.0');
  });

  it('rejects a version by someone who is not the author with 403 and stores nothing', async () => {
    const { id, slug } = await newSkill();
    const res = await withKey(stack, bobKey, `/api/skills/${id}/versions`, { body: version(slug, '1.1.0') });
    expect(res.status).toBe(403);
    expect((await json(res)).error.code).toBe('forbidden');
    expect((await listVersions(stack.deps.db, id)).map((v) => v.version)).toEqual(['1.0.0']);
  });

  it('rejects a version without credentials (401) and for an unknown skill (404)', async () => {
    const { id, slug } = await newSkill();
    const anon = await stack.request(`/api/skills/${id}/versions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(version(slug, '1.1.0')),
    });
    expect(anon.status).toBe(401);
    const missing = await withKey(stack, aliceKey, '/api/skills/does-not-exist/versions', { body: version(slug, '1.1.0') });
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe('not_found');
  });

  it('gives its verdicts in order though its reads go out together: caller, body, skill, version', async () => {
    const { id, slug } = await newSkill();
    const post = (headers: Record<string, string>, body: string, skill = id) =>
      stack.request(`/api/skills/${skill}/versions`, { method: 'POST', headers, body });
    const taken = JSON.stringify(version(slug, '1.0.0'));
    const code = async (res: Promise<Response>) => (await json(await res)).error.code;
    expect(await code(post({ 'content-type': 'text/plain', authorization: 'Bearer sk_nope' }, 'x'))).toBe('unauthenticated');
    expect(await code(post({ 'content-type': 'application/json', authorization: 'Bearer sk_nope' }, taken, 'no-such-skill'))).toBe('unauthenticated');
    expect(await code(post({ 'content-type': 'text/plain', authorization: `Bearer ${aliceKey}` }, taken))).toBe('unsupported_media_type');
    expect(await code(post({ 'content-type': 'application/json', authorization: `Bearer ${aliceKey}` }, '{"version":"1.x"}', 'no-such-skill'))).toBe(
      'invalid_request',
    );
    expect(await code(post({ 'content-type': 'application/json', authorization: `Bearer ${aliceKey}` }, taken, 'no-such-skill'))).toBe('not_found');
    expect(await code(post({ 'content-type': 'application/json', authorization: `Bearer ${aliceKey}` }, taken))).toBe('version_exists');
  });

  it('rejects a second 1.1.0 with version_exists, and 1.0.0 too', async () => {
    const { id, slug } = await newSkill();
    expect((await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: version(slug, '1.1.0') })).status).toBe(201);
    for (const v of ['1.1.0', '1.0.0']) {
      const res = await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: version(slug, v, { changelog: 'sneaky' }) });
      expect(res.status).toBe(409);
      expect((await json(res)).error.code).toBe('version_exists');
    }
    const stored = (await listVersions(stack.deps.db, id)).find((v) => v.version === '1.1.0')!;
    expect(stored.changelog).toBe('Changes in 1.1.0');
  });

  it('rejects a repeated version before storing any of its content', async () => {
    const { id, slug } = await newSkill();
    const content = `never stored ${crypto.randomUUID()}`;
    const res = await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: version(slug, '1.0.0', { files: [skillFile(slug, content)] }) });
    expect(res.status).toBe(409);
    const sha = createHash('sha256').update(skillFile(slug, content).content).digest('hex');
    const blobs = await stack.deps.s3.send(new ListObjectsV2Command({ Bucket: stack.config.contentBucket, Prefix: `blobs/${sha.slice(0, 2)}/` }));
    expect((blobs.Contents ?? []).map((o) => o.Key)).not.toContain(`blobs/${sha.slice(0, 2)}/${sha}`);
  });

  it.each(['v1.2.0', '1.2', 'one', '1.2.0+build', ' 1.2.0'])('rejects version %j with 400', async (v) => {
    const { id, slug } = await newSkill();
    const res = await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: version(slug, v) });
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe('invalid_request');
  });

  it('keeps the current version for a backport and a prerelease, and says so', async () => {
    const { id, slug } = await newSkill();
    await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: version(slug, '2.0.0') });
    const backport = await json(await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: version(slug, '1.0.1') }));
    expect(backport).toMatchObject({ version: '1.0.1', currentVersion: '2.0.0' });
    const pre = await json(await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: version(slug, '3.0.0-rc.1') }));
    expect(pre).toMatchObject({ version: '3.0.0-rc.1', currentVersion: '2.0.0' });
    expect((await listVersions(stack.deps.db, id)).map((v) => v.version).sort()).toEqual(['1.0.0', '1.0.1', '2.0.0', '3.0.0-rc.1']);
  });

  it('gives exactly one 201 for 16 concurrent publishes of the same version', async () => {
    const { id, slug } = await newSkill();
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: version(slug, '1.5.0', { changelog: `attempt ${i}` }) }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(15);
    expect((await listVersions(stack.deps.db, id)).filter((v) => v.version === '1.5.0')).toHaveLength(1);
  });

  it('stores all of 16 concurrent different versions and makes the highest current', async () => {
    const { id, slug } = await newSkill();
    const versions = Array.from({ length: 16 }, (_, i) => `2.${(i * 7) % 16}.${i % 3}`);
    const results = await Promise.all(versions.map((v) => withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: version(slug, v) })));
    expect(results.map((r) => r.status)).toEqual(versions.map(() => 201));
    expect((await listVersions(stack.deps.db, id)).map((v) => v.version).sort()).toEqual(['1.0.0', ...versions].sort());
    expect((await getSkill(stack.deps.db, id))!.currentVersion).toBe('2.15.0');
  });

  it('rejects a traversal filename in a version with 400 and stores nothing', async () => {
    const { id } = await newSkill();
    for (const filename of ['../x', 'a/../../x', '/abs', 'a\\b', '']) {
      const res = await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: { version: '1.9.0', files: [{ filename, content: 'x' }] } });
      expect(res.status, filename).toBe(400);
    }
    expect((await listVersions(stack.deps.db, id)).map((v) => v.version)).toEqual(['1.0.0']);
  });

  it('rejects a session write from another origin with csrf_rejected', async () => {
    const { id, slug } = await newSkill();
    const res = await alice.session(`/api/skills/${id}/versions`, {
      method: 'POST',
      body: version(slug, '1.1.0'),
      headers: { origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
    expect((await json(res)).error.code).toBe('csrf_rejected');
  });

  it('never stores a secret in the table', async () => {
    const { Items } = await stack.deps.db.doc.send(new ScanCommand({ TableName: stack.deps.db.table }));
    const dump = JSON.stringify(Items);
    expect(dump).not.toContain(aliceKey);
    expect(dump).not.toContain(bobKey);
    expect(dump).not.toContain(alice.cookie!.split('=')[1]);
  });
});

describe('what a version publish costs in storage calls', () => {
  it('puts only new content, reads what the checks need once, and rebuilds from one Query of the skill', async () => {
    const own = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
    const k = await (await Client.signIn(own, 'carol')).createKey();
    // Nothing here runs: the version is cleared at publish, and no run in the sandbox adds its own calls.
    const shared = { filename: 'references/shared.md', content: 'shared' };
    const created = await withKey(own, k, '/api/publish', { body: skillBody({ slug: 'carols-skill', files: [skillFile('carols-skill', '# one'), shared] }) });
    const { id } = await json<{ id: string }>(created);
    expect(
      (await withKey(own, k, `/api/skills/${id}/versions`, { body: { version: '1.1.0', files: [skillFile('carols-skill', '# two'), shared] } })).status,
    ).toBe(201);
    await own.idle();

    const recorder = recordAwsCalls(own.deps);
    const res = await withKey(own, k, `/api/skills/${id}/versions`, {
      body: { version: '1.2.0', files: [skillFile('carols-skill', '# three'), shared] },
    });
    expect(res.status).toBe(201);
    await own.idle();
    const calls = recorder.take().map((r) => r.call);
    // The unchanged file was stored by an earlier publish: no lookup, no second upload.
    expect(calls.filter((c) => c.service === 's3' && c.bucket === 'content').map((c) => c.action)).toEqual(['s3:PutObject']);
    // The rebuild writes the new bundle without asking whether it is there (it was published
    // after this rebuilder started), the two registry documents, the archive, the skill's own
    // index and current SKILL.md (its discovery entry changed), both indexes (the discovery
    // index twice: at its path and at v0.1's), the search index's head and text shard (the
    // SKILL.md it indexes is read from the blob cache), and the catalog: its one page and its
    // index, then the whole catalog and its brotli and gzip copies (assembled after each write
    // locally; once a minute on AWS).
    expect(calls.filter((c) => c.service === 's3' && c.bucket === 'static').map((c) => c.action)).toEqual(Array(15).fill('s3:PutObject'));
    const dynamo = calls
      .filter((c) => c.service === 'dynamodb')
      .map((c) => c.action)
      .sort();
    expect(dynamo).toEqual([
      // The API key and its (known) owner, in one request; then, once the caller is known and
      // the body valid, the skill and whether the version is taken, in one more.
      'dynamodb:BatchGetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:PutItem', // the author's window of the version limit (known to this process: not read again)
      'dynamodb:PutItem', // the version, conditionally
      'dynamodb:PutItem', // beside META's update: the version's ClawHub fingerprint, so a resolve is one read (docs/api.md §14.4)
      'dynamodb:PutItem', // and the registry's signature of the version (docs/api.md §11.11)
      'dynamodb:Query', // the rebuild: the skill, its versions, their fingerprints and signatures (nothing missing: no write)
      'dynamodb:UpdateItem', // the rebuild's index lock, taken (with the last holder's memo)
      'dynamodb:UpdateItem', // the rebuild's index lock, released (with this holder's memo)
      'dynamodb:UpdateItem', // the skill's current version
    ]);
  });
});

describe('the version rate limit (docs/api.md §6.4)', () => {
  it('answers the version over the limit within a minute with 429, Retry-After and RateLimit headers, counting every key and session of the author', async () => {
    const limited = await createTestStack({}, { SKILLPRESS_VERSION_LIMIT: '3' });
    const hana = await Client.signIn(limited, 'hana');
    const [k1, k2] = [await hana.createKey('one'), await hana.createKey('two')];
    const { id, slug } = await json<{ id: string; slug: string }>(await withKey(limited, k1, '/api/publish', { body: skillBody() }));
    const post = (v: string, via: 'one' | 'two' | 'session', files = [skillFile(slug, `# ${v}`)]) =>
      via === 'session'
        ? hana.session(`/api/skills/${id}/versions`, { method: 'POST', body: { version: v, files } })
        : withKey(limited, via === 'one' ? k1 : k2, `/api/skills/${id}/versions`, { body: { version: v, files } });
    // A version refused for another reason spends no slot.
    expect((await post('1.0.1', 'one', [{ filename: 'SKILL.md', content: '# no front matter' }])).status).toBe(400);
    for (const [i, via] of (['one', 'two', 'session'] as const).entries()) {
      const res = await post(`1.1.${i}`, via);
      expect(res.status).toBe(201);
      expect(res.headers.get('ratelimit-limit')).toBe('3');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(2 - i));
    }
    const over = await post('1.2.0', 'two');
    expect(over.status).toBe(429);
    expect((await json(over)).error.code).toBe('rate_limited');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(over.headers.get('ratelimit-remaining')).toBe('0');
    expect((await listVersions(limited.deps.db, id)).map((v) => v.version)).not.toContain('1.2.0');
    // New skills have their own limit: the author may still create one.
    expect((await withKey(limited, k1, '/api/publish', { body: skillBody() })).status).toBe(201);
    // Another author is not held up.
    const ivo = await (await Client.signIn(limited, 'ivo')).createKey();
    const theirs = await json<{ id: string; slug: string }>(await withKey(limited, ivo, '/api/publish', { body: skillBody() }));
    expect((await withKey(limited, ivo, `/api/skills/${theirs.id}/versions`, { body: { version: '1.1.0', files: [skillFile(theirs.slug)] } })).status).toBe(
      201,
    );

    limited.setNow(new Date(Date.now() + 61_000));
    expect((await post('1.2.0', 'one')).status).toBe(201);
  });

  it('admits exactly the limit of a burst of concurrent versions', async () => {
    const limited = await createTestStack({}, { SKILLPRESS_VERSION_LIMIT: '4' });
    const key = await (await Client.signIn(limited, 'jun')).createKey();
    const { id, slug } = await json<{ id: string; slug: string }>(await withKey(limited, key, '/api/publish', { body: skillBody() }));
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        withKey(limited, key, `/api/skills/${id}/versions`, { body: { version: `2.0.${i}`, files: [skillFile(slug, `# ${i}`)] } }),
      ),
    );
    const counts: Record<number, number> = {};
    for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
    expect(counts).toEqual({ 201: 4, 429: 6 });
  });
});
