import { beforeAll, describe, expect, it } from 'vitest';
import { listVersions } from '#functions/store/skills';
import { recordAwsCalls, type AwsCallRecorder } from '../support/aws-calls.ts';
import { Client, createTestStack, json, skillBody, skillFile, type TestStack, withKey } from '../support/stack.ts';

/**
 * The input rules of docs/api.md ("Limits and bad input") through the real app and storage:
 * each bad input is a 400 with the contract's shape, decided before any storage read made on
 * its behalf, and leaves nothing behind.
 */

let stack: TestStack;
let alice: Client;
let aliceKey: string;
let calls: AwsCallRecorder;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
  alice = await Client.signIn(stack, 'alice');
  aliceKey = await alice.createKey();
  calls = recordAwsCalls(stack.deps);
});

async function newSkill(overrides: Record<string, unknown> = {}): Promise<{ id: string; slug: string }> {
  const res = await withKey(stack, aliceKey, '/api/publish', { body: skillBody(overrides) });
  expect(res.status, await res.clone().text()).toBe(201);
  return json(res);
}

async function expectInvalid(res: Response, path?: (string | number)[]): Promise<void> {
  expect(res.status).toBe(400);
  const body = await json(res);
  expect(body.error.code).toBe('invalid_request');
  if (path) expect(body.error.details.issues.map((i: { path: unknown }) => i.path)).toContainEqual(path);
}

const manyDependencies = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`dep-${i}`, '^1.0.0']));

describe('versions', () => {
  it('accepts a version of 128 characters and rebuilds it', async () => {
    const { id, slug } = await newSkill();
    const version = `1.0.1-${'a'.repeat(122)}`;
    expect(version).toHaveLength(128);
    const res = await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: { version, files: [skillFile(slug, '# long')] } });
    expect(res.status).toBe(201);
    await stack.idle();
    const versions = await json(await stack.request(`/api/registry/${slug}/versions`));
    expect(versions.versions.map((v: { version: string }) => v.version)).toContain(version);
  });

  it('refuses a version of 129 characters or more with 400, storing nothing', async () => {
    const { id } = await newSkill();
    for (const version of [`1.0.0-${'a'.repeat(123)}`, `1.0.0-${'a'.repeat(250)}`]) {
      const res = await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: { version, files: [] } });
      await expectInvalid(res, ['version']);
    }
    expect((await listVersions(stack.deps.db, id)).map((v) => v.version)).toEqual(['1.0.0']);
  });

  it('refuses an over-long ?version= at delivery with 400', async () => {
    const { id } = await newSkill();
    await expectInvalid(await stack.request(`/api/deliver/${id}?version=1.0.0-${'a'.repeat(200)}`));
  });
});

describe('dependencies', () => {
  it('answers 100,000 entries without credentials with 401 before reading anything, and the server stays free', async () => {
    const { id } = await newSkill();
    await stack.idle();
    calls.take();
    const body = JSON.stringify({ version: '2.0.0', files: [], dependencies: manyDependencies(100_000) });
    const res = await stack.request(`/api/skills/${id}/versions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(401);
    expect(calls.take()).toEqual([]);
    expect((await stack.request('/api/health')).status).toBe(200);
  });

  it('answers 100,000 entries from the author with 400, reading nothing but the key', async () => {
    const { id } = await newSkill();
    await stack.idle();
    calls.take();
    const res = await withKey(stack, aliceKey, `/api/skills/${id}/versions`, {
      body: { version: '2.0.0', files: [], dependencies: manyDependencies(100_000) },
    });
    await expectInvalid(res, ['dependencies']);
    expect(calls.take().map((c) => c.call.action)).toEqual(['dynamodb:BatchGetItem']);
  });

  it('takes 32 dependencies in two batched reads (their slugs, then their skills), and refuses 33', async () => {
    const deps = manyDependencies(32);
    for (const slug of Object.keys(deps)) await newSkill({ slug });
    await stack.idle();
    calls.take();
    const ok = await withKey(stack, aliceKey, '/api/publish', { body: skillBody({ dependencies: deps }) });
    expect(ok.status).toBe(201);
    const reads = calls.take().filter((c) => c.call.action === 'dynamodb:GetItem' || c.call.action === 'dynamodb:BatchGetItem');
    expect(reads.length).toBeLessThanOrEqual(5);
    await expectInvalid(await withKey(stack, aliceKey, '/api/publish', { body: skillBody({ dependencies: { ...deps, 'one-more': '*' } }) }), ['dependencies']);
  });

  it('refuses __proto__ and other keys that are not slugs, instead of dropping them', async () => {
    const { id } = await newSkill();
    for (const key of ['__proto__', '../../evil', '/abs', 'UPPER', 'a--b']) {
      const body = `{"version":"2.0.0","files":[],"dependencies":{${JSON.stringify(key)}:"*"}}`;
      await expectInvalid(await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body }), ['dependencies', key]);
    }
    expect((await listVersions(stack.deps.db, id)).map((v) => v.version)).toEqual(['1.0.0']);
  });

  it('looks up a dependency named like an Object.prototype member, as any other slug', async () => {
    const missing = await withKey(stack, aliceKey, '/api/publish', { body: skillBody({ dependencies: { constructor: '*' } }) });
    await expectInvalid(missing, ['dependencies', 'constructor']);
    await newSkill({ slug: 'constructor' });
    const res = await withKey(stack, aliceKey, '/api/publish', { body: skillBody({ dependencies: { constructor: '^1.0.0' } }) });
    expect(res.status).toBe(201);
    await stack.idle();
    const registry = await json(await stack.request(`/api/registry/${(await json(res)).slug}`));
    expect(registry.dependencies).toEqual({ constructor: '^1.0.0' });
  });
});

describe('text fields', () => {
  it.each([
    ['name', { name: 'Nice\u001b]0;pwned\u0007' }],
    ['name', { name: 'two\nlines' }],
    ['description', { description: 'clears\u001b[2J the screen' }],
    ['description', { description: 'a C1 control \u009b here' }],
    ['description', { description: 'a lone \ud800 surrogate' }],
    ['category', { category: 'dev\u0000tools' }],
    ['changelog', { changelog: 'fake\r\noutput' }],
    ['changelog', { changelog: 'bell \u0007' }],
  ])('refuses control characters and lone surrogates in %s', async (field, overrides) => {
    const res = await withKey(stack, aliceKey, '/api/publish', { body: skillBody(overrides) });
    await expectInvalid(res, [field]);
  });

  it('keeps newlines and tabs in changelogs', async () => {
    const { id, slug } = await newSkill();
    const res = await withKey(stack, aliceKey, `/api/skills/${id}/versions`, {
      body: { version: '1.1.0', changelog: 'Fixes:\n\t- one\n\t- two', files: [skillFile(slug)] },
    });
    expect(res.status).toBe(201);
  });

  it('refuses a lone surrogate in a UTF-8 file, whose bytes could not be kept', async () => {
    const res = await withKey(stack, aliceKey, '/api/publish', { body: skillBody({ files: [{ filename: 'SKILL.md', content: 'bad \udc00' }] }) });
    await expectInvalid(res, ['files', 0, 'content']);
  });

  it('refuses slugs with leading, trailing or doubled hyphens', async () => {
    for (const slug of ['-lead', 'trail-', 'dou--ble'])
      await expectInvalid(await withKey(stack, aliceKey, '/api/publish', { body: skillBody({ slug }) }), ['slug']);
  });
});

describe('file names', () => {
  const publishFiles = (filenames: string[]) =>
    withKey(stack, aliceKey, '/api/publish', { body: skillBody({ files: filenames.map((filename) => ({ filename, content: 'x' })) }) });

  it('refuses a file that is also a folder of another', async () => {
    await expectInvalid(await publishFiles(['SKILL.md', 'a', 'a/b']), ['files', 2, 'filename']);
    await expectInvalid(await publishFiles(['SKILL.md', 'docs/x/y.md', 'DOCS/x']), ['files', 2, 'filename']);
  });

  it('refuses names that Windows or macOS cannot store', async () => {
    for (const name of ['a:b.md', 'CON', 'docs/aux.txt', 'what?.md', 'trailing.', 'trailing ']) {
      await expectInvalid(await publishFiles(['SKILL.md', name]), ['files', 1, 'filename']);
    }
  });

  it('refuses NFC/NFD twins', async () => {
    await expectInvalid(await publishFiles(['SKILL.md', 'caf\u00e9.md', 'cafe\u0301.md']), ['files', 2, 'filename']);
  });
});

describe('API key use', () => {
  it('records lastUsedAt only when a request the key authenticated succeeds', async () => {
    const client = await Client.signIn(stack, 'carol');
    const key = await client.createKey('fresh');
    const lastUsed = async () => (await json(await client.session('/api/api-keys'))).keys[0].lastUsedAt;
    await expectInvalid(await withKey(stack, key, '/api/publish', { body: skillBody({ name: 'bad\u001b' }) }));
    expect((await withKey(stack, key, '/api/skills/no-such-skill/versions', { body: { version: '1.0.1', files: [] } })).status).toBe(404);
    expect(await lastUsed()).toBeNull();
    expect((await withKey(stack, key, '/api/publish', { body: skillBody() })).status).toBe(201);
    expect(await lastUsed()).toEqual(expect.any(String));
  });
});

describe('security headers', () => {
  it('sends nosniff, no framing and a locked-down policy on API answers and errors', async () => {
    for (const res of [await stack.request('/api/health'), await stack.request('/api/no-such-route')]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
  });
});
