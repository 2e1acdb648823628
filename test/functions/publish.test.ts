import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { returnSlot, takeSlot } from '#functions/store/rate-limit';
import { rateLimitKey } from '#functions/store/keys';
import { Client, createTestStack, json, skillBody, skillFile, type TestStack, withKey } from '../support/stack.ts';

let stack: TestStack;
let alice: Client;
let aliceKey: string;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
  alice = await Client.signIn(stack, 'alice');
  aliceKey = await alice.createKey();
});

async function tableItems(s: TestStack = stack): Promise<Record<string, unknown>[]> {
  const { Items } = await s.deps.db.doc.send(new ScanCommand({ TableName: s.deps.db.table }));
  return Items ?? [];
}

async function contentKeys(s: TestStack = stack): Promise<string[]> {
  const out = await s.deps.s3.send(new ListObjectsV2Command({ Bucket: s.config.contentBucket }));
  return (out.Contents ?? []).map((o) => o.Key!);
}

describe('POST /api/publish', () => {
  it('creates the skill at 1.0.0 and answers 201 with the skill object', async () => {
    const res = await withKey(stack, aliceKey, '/api/publish', { body: { name: 'Pretty JSON', description: 'Formats JSON', category: ' Dev Tools ' } });
    expect(res.status).toBe(201);
    const skill = await json(res);
    expect(skill).toEqual({
      id: expect.any(String),
      slug: 'pretty-json',
      name: 'Pretty JSON',
      description: 'Formats JSON',
      category: 'dev-tools',
      author: 'alice',
      owner: { type: 'user', login: 'alice' },
      visibility: 'public',
      paid: false,
      currentVersion: '1.0.0',
      formats: ['agent-skills'],
      createdAt: expect.any(String),
      updatedAt: skill.createdAt,
      scan: { verdict: 'clean', rulesVersion: expect.any(String), findings: [] },
      // Nothing in it runs: cleared at once.
      behaviour: 'cleared',
    });
  });

  it("files a skill published without a category under its SKILL.md's metadata.category, else general, as the CLI does", async () => {
    const plain = await withKey(stack, aliceKey, '/api/publish', { body: { name: 'No Category', description: 'Has none' } });
    expect(plain.status).toBe(201);
    expect(await json(plain)).toMatchObject({ slug: 'no-category', category: 'general' });

    const md = '---\nname: own-category\ndescription: >\n  Says its own\n  category.\nmetadata:\n  category: Data Tools\n---\n# Own\n';
    const own = await withKey(stack, aliceKey, '/api/publish', {
      body: { name: 'Own Category', description: 'Says its own', files: [{ filename: 'SKILL.md', content: md }] },
    });
    expect(own.status).toBe(201);
    expect(await json(own)).toMatchObject({ slug: 'own-category', category: 'data-tools' });

    // Another tool's top-level category is not Skillpress's: published, in the default category.
    const theirs = '---\nname: their-category\ndescription: d\ncategory: Security & Testing\n---\n';
    const other = await withKey(stack, aliceKey, '/api/publish', {
      body: { name: 'Their Category', description: 'd', files: [{ filename: 'SKILL.md', content: theirs }] },
    });
    expect(other.status).toBe(201);
    expect(await json(other)).toMatchObject({ category: 'general', warnings: [expect.stringContaining('"category" at the top level')] });
  });

  it('stores content by SHA-256 in S3', async () => {
    const file = skillFile('unique-content', 'unique-content-42');
    const res = await withKey(stack, aliceKey, '/api/publish', { body: skillBody({ slug: 'unique-content', files: [file] }) });
    expect(res.status).toBe(201);
    const sha = (await import('node:crypto')).createHash('sha256').update(file.content).digest('hex');
    expect(await contentKeys()).toContain(`blobs/${sha.slice(0, 2)}/${sha}`);
  });

  it('refuses publishing without a key, with a bogus key, with a revoked key and with a session (401)', async () => {
    const body = JSON.stringify(skillBody());
    const cases: Record<string, string>[] = [{}, { authorization: 'Bearer sk_bogus' }, { authorization: 'Basic abc' }, { cookie: alice.cookie! }];
    const { id, key } = await json(await alice.session('/api/api-keys', { method: 'POST', body: { name: 'revoked' } }));
    await alice.session(`/api/api-keys/${id}`, { method: 'DELETE' });
    cases.push({ authorization: `Bearer ${key}` });
    for (const headers of cases) {
      const res = await stack.request('/api/publish', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(await json(res)).toEqual({ error: { code: 'unauthenticated', message: expect.any(String) } });
    }
  });

  it('rejects a slug that belongs to another skill with 409 slug_taken', async () => {
    const bob = await Client.signIn(stack, 'bob');
    const bobKey = await bob.createKey();
    expect((await withKey(stack, aliceKey, '/api/publish', { body: skillBody({ slug: 'taken-slug' }) })).status).toBe(201);
    const res = await withKey(stack, bobKey, '/api/publish', { body: skillBody({ slug: 'taken-slug' }) });
    expect(res.status).toBe(409);
    expect((await json(res)).error.code).toBe('slug_taken');
    const again = await withKey(stack, aliceKey, '/api/publish', { body: skillBody({ slug: 'taken-slug' }) });
    expect(again.status).toBe(409);
    expect((await json(again)).error).toMatchObject({ code: 'slug_taken', details: { skillId: expect.any(String) } });
  });

  it('gives exactly one 201 when 8 publishes race for one slug', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => withKey(stack, aliceKey, '/api/publish', { body: skillBody({ slug: 'race-slug' }) })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    const metas = (await tableItems()).filter((i) => i.sk === 'META' && i.slug === 'race-slug');
    expect(metas).toHaveLength(1);
  });

  it('requires dependencies to name existing skills', async () => {
    const base = await json(await withKey(stack, aliceKey, '/api/publish', { body: skillBody() }));
    const ok = await withKey(stack, aliceKey, '/api/publish', { body: skillBody({ dependencies: { [base.slug]: '^1.0.0' } }) });
    expect(ok.status).toBe(201);
    const bad = await withKey(stack, aliceKey, '/api/publish', { body: skillBody({ dependencies: { 'no-such-skill': '^1.0.0' } }) });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.details.issues[0].path).toEqual(['dependencies', 'no-such-skill']);
  });

  it.each([
    ['malformed JSON', '{"name":', 400, 'invalid_request'],
    ['an array', '[]', 400, 'invalid_request'],
    ['an unknown field', JSON.stringify({ ...skillBody(), admin: true }), 400, 'invalid_request'],
    ['a traversal filename', JSON.stringify(skillBody({ files: [{ filename: '../../etc/passwd', content: 'x' }] })), 400, 'invalid_request'],
    ['an absolute filename', JSON.stringify(skillBody({ files: [{ filename: '/etc/passwd', content: 'x' }] })), 400, 'invalid_request'],
    ['a backslash filename', JSON.stringify(skillBody({ files: [{ filename: '..\\x', content: 'x' }] })), 400, 'invalid_request'],
    ['bad base64', JSON.stringify(skillBody({ files: [{ filename: 'a.bin', content: '***', encoding: 'base64' }] })), 400, 'invalid_request'],
    ['a name without letters', JSON.stringify(skillBody({ name: '!!!' })), 400, 'invalid_request'],
    ['201 files', JSON.stringify(skillBody({ files: Array.from({ length: 201 }, (_, i) => ({ filename: `f${i}`, content: '' })) })), 413, 'payload_too_large'],
    ['a file over 1 MiB', JSON.stringify(skillBody({ files: [{ filename: 'big', content: 'x'.repeat(1024 * 1024 + 1) }] })), 413, 'payload_too_large'],
    [
      'files over 5 MiB in total',
      JSON.stringify(skillBody({ files: Array.from({ length: 6 }, (_, i) => ({ filename: `f${i}`, content: 'x'.repeat(1000 * 1000) })) })),
      413,
      'payload_too_large',
    ],
  ])('rejects %s with %i %s and stores nothing', async (_, body, status, code) => {
    await stack.idle();
    const before = await tableItems();
    const blobsBefore = await contentKeys();
    const res = await stack.request('/api/publish', {
      method: 'POST',
      headers: { authorization: `Bearer ${aliceKey}`, 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(status);
    expect(await json(res)).toMatchObject({ error: { code, message: expect.any(String) } });
    const after = await tableItems();
    expect(after.filter((i) => i.sk !== 'APIKEY')).toEqual(before.filter((i) => i.sk !== 'APIKEY'));
    expect(await contentKeys()).toEqual(blobsBefore);
  });

  it('rejects a body over 6 MiB with 413 and stores nothing', async () => {
    await stack.idle();
    const before = await tableItems();
    const body = JSON.stringify(skillBody({ files: [{ filename: 'big', content: 'x'.repeat(6 * 1024 * 1024 + 10) }] }));
    const res = await stack.request('/api/publish', {
      method: 'POST',
      headers: { authorization: `Bearer ${aliceKey}`, 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(413);
    expect((await json(res)).error.code).toBe('payload_too_large');
    expect((await tableItems()).filter((i) => i.sk !== 'APIKEY')).toEqual(before.filter((i) => i.sk !== 'APIKEY'));
  });

  it('rejects a write without a JSON content type with 415', async () => {
    const res = await stack.request('/api/publish', { method: 'POST', headers: { authorization: `Bearer ${aliceKey}` }, body: JSON.stringify(skillBody()) });
    expect(res.status).toBe(415);
    expect((await json(res)).error.code).toBe('unsupported_media_type');
  });
});

describe('publish rate limit', () => {
  it('answers the 6th publish within a minute with 429, Retry-After and RateLimit headers, and stores it not', async () => {
    const limited = await createTestStack();
    const carol = await Client.signIn(limited, 'carol');
    const [k1, k2] = [await carol.createKey('one'), await carol.createKey('two')];
    for (let i = 0; i < 5; i++) {
      const res = await withKey(limited, i % 2 ? k1 : k2, '/api/publish', { body: skillBody() });
      expect(res.status).toBe(201);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(4 - i));
    }
    const sixth = await withKey(limited, k1, '/api/publish', { body: skillBody({ slug: 'sixth' }) });
    expect(sixth.status).toBe(429);
    expect((await json(sixth)).error.code).toBe('rate_limited');
    const retryAfter = Number(sixth.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(sixth.headers.get('ratelimit-limit')).toBe('5');
    expect(sixth.headers.get('ratelimit-remaining')).toBe('0');
    expect((await tableItems(limited)).some((i) => i.slug === 'sixth')).toBe(false);

    limited.setNow(new Date(Date.now() + 61_000));
    expect((await withKey(limited, k1, '/api/publish', { body: skillBody() })).status).toBe(201);
  });

  it('admits exactly 5 of a burst of 12 concurrent publishes', async () => {
    const limited = await createTestStack();
    const dave = await Client.signIn(limited, 'dave');
    const key = await dave.createKey();
    const results = await Promise.all(Array.from({ length: 12 }, () => withKey(limited, key, '/api/publish', { body: skillBody() })));
    const counts: Record<number, number> = {};
    for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
    expect(counts).toEqual({ 201: 5, 429: 7 });
  });

  it("counts another process's publishes and honours the slots it gives back", async () => {
    const limited = await createTestStack();
    const gus = await Client.signIn(limited, 'gus');
    const key = await gus.createKey();
    const userId = ((await json(await gus.session('/api/me'))) as { user: { id: string } }).user.id;
    for (let i = 0; i < 2; i++) expect((await withKey(limited, key, '/api/publish', { body: skillBody() })).status).toBe(201);
    // Another container takes the three remaining slots: this process's view of the window is stale.
    const table = limited.deps.db;
    const window = { action: 'publish' as const, limit: 5, windowMs: 60_000 };
    const elsewhere = { ...table }; // another container: a Db this process never used
    const stamps = await Promise.all([0, 1, 2].map(() => takeSlot(elsewhere, userId, new Date(), window)));
    const refused = await withKey(limited, key, '/api/publish', { body: skillBody() });
    expect(refused.status).toBe(429);
    // It gives one back (its publish failed): the window has room again, though this process saw it full.
    await returnSlot(elsewhere, userId, stamps[0]!.stamp, window);
    expect((await withKey(limited, key, '/api/publish', { body: skillBody() })).status).toBe(201);
    expect((await withKey(limited, key, '/api/publish', { body: skillBody() })).status).toBe(429);
    // This process last saw the window full; another slot given back elsewhere is still found.
    await returnSlot(elsewhere, userId, stamps[1]!.stamp, window);
    expect((await withKey(limited, key, '/api/publish', { body: skillBody() })).status).toBe(201);
    const item = (await table.doc.send(new GetCommand({ TableName: table.table, Key: rateLimitKey(userId, 'PUBLISH'), ConsistentRead: true }))).Item!;
    expect(item.stamps).toHaveLength(5);
  });

  it('replaces a window item that does not read as one instead of refusing the author for good', async () => {
    const limited = await createTestStack();
    const hal = await Client.signIn(limited, 'hal');
    const key = await hal.createKey();
    const userId = ((await json(await hal.session('/api/me'))) as { user: { id: string } }).user.id;
    const table = limited.deps.db;
    await table.doc.send(new PutCommand({ TableName: table.table, Item: { ...rateLimitKey(userId, 'PUBLISH'), revision: 7, stamps: 'damaged' } }));
    for (let i = 0; i < 5; i++) expect((await withKey(limited, key, '/api/publish', { body: skillBody() })).status).toBe(201);
    expect((await withKey(limited, key, '/api/publish', { body: skillBody() })).status).toBe(429);
    const item = (await table.doc.send(new GetCommand({ TableName: table.table, Key: rateLimitKey(userId, 'PUBLISH'), ConsistentRead: true }))).Item!;
    expect([item.revision, (item.stamps as number[]).length]).toEqual([5, 5]);
  });

  it('does not spend the limit on rejected requests', async () => {
    const limited = await createTestStack();
    const erin = await Client.signIn(limited, 'erin');
    const key = await erin.createKey();
    for (let i = 0; i < 6; i++) expect((await withKey(limited, key, '/api/publish', { body: { name: 'x' } })).status).toBe(400);
    for (let i = 0; i < 5; i++) expect((await withKey(limited, key, '/api/publish', { body: skillBody() })).status).toBe(201);
  });
});

describe('a publish whose last write fails', () => {
  it('answers 500 and leaves no trace: no version, no fingerprint, the slug free and the slot given back', async () => {
    const own = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
    const key = await (await Client.signIn(own, 'carol')).createKey();
    const before = await tableItems(own);
    // The skill's META is the last item a new skill writes; refuse it once.
    const send = own.deps.db.doc.send.bind(own.deps.db.doc);
    let refused = false;
    own.deps.db.doc.send = ((command: { input?: { Item?: { sk?: string } } }) => {
      if (!refused && command.input?.Item?.sk === 'META') {
        refused = true;
        return Promise.reject(Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' }));
      }
      return send(command as never);
    }) as typeof own.deps.db.doc.send;
    const body = skillBody({ name: 'Half Written' });
    const res = await withKey(own, key, '/api/publish', { body });
    expect([res.status, (await json(res)).error.code]).toEqual([500, 'internal']);
    expect(refused).toBe(true);
    const after = (await tableItems(own)).filter((item) => !before.some((old) => old.pk === item.pk && old.sk === item.sk));
    // Only the API key's own bookkeeping may have changed; nothing of the skill.
    expect(after.filter((item) => String(item.pk).startsWith('SKILL') || String(item.pk).startsWith('SLUG'))).toEqual([]);
    expect((await withKey(own, key, '/api/publish', { body })).status).toBe(201);
  });
});
