import { beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestStack, json, skillBody, skillFile, type TestStack, withKey } from '../support/stack.ts';

/**
 * Scoped, narrowed and expiring API keys: what a key may do is what its owner may, within its
 * scopes and its reach, until it expires; a key made without any of that keeps today's meaning.
 */

let stack: TestStack;
let alice: Client;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000' });
  alice = await Client.signIn(stack, 'alice');
});

async function createKey(client: Client, body: Record<string, unknown>): Promise<Response> {
  return client.session('/api/api-keys', { method: 'POST', body: { name: 'scoped', ...body } });
}
async function keyWith(client: Client, body: Record<string, unknown>): Promise<string> {
  const res = await createKey(client, body);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json(res)).key;
}
async function publish(key: string, overrides: Record<string, unknown> = {}): Promise<Response> {
  return withKey(stack, key, '/api/publish', { body: skillBody(overrides) });
}

describe('a key made without limits', () => {
  it('keeps its meaning: every scope, no narrowing, no expiry, as the list shows', async () => {
    const key = await keyWith(alice, { name: 'plain' });
    expect((await publish(key)).status).toBe(201);
    const { keys } = await json(await alice.session('/api/api-keys'));
    expect(keys.find((k: { name: string }) => k.name === 'plain')).toEqual({
      id: expect.any(String),
      name: 'plain',
      prefix: key.slice(0, 7),
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
      scopes: ['publish', 'manage', 'read'],
      org: null,
      skills: null,
      expiresAt: null,
    });
  });
});

describe('scopes', () => {
  it('refuse what a key was not made for, naming the missing scope', async () => {
    const read = await keyWith(alice, { scopes: ['read'] });
    const refused = await publish(read);
    expect(refused.status).toBe(403);
    expect((await json(refused)).error).toEqual({ code: 'insufficient_scope', message: 'This API key lacks the publish scope', details: { scope: 'publish' } });
    const full = await keyWith(alice, {});
    const skill = await json(await publish(full));
    const publishOnly = await keyWith(alice, { scopes: ['publish'] });
    const version = await withKey(stack, publishOnly, `/api/skills/${skill.id}/versions`, { body: { version: '1.1.0', files: [skillFile(skill.slug, 'x')] } });
    expect(version.status).toBe(201);
    const yank = await withKey(stack, publishOnly, `/api/skills/${skill.id}/versions/1.0.0/yank`, { body: {} });
    expect(yank.status).toBe(403);
    expect((await json(yank)).error.details).toEqual({ scope: 'manage' });
  });

  it('are checked when the key is made', async () => {
    for (const body of [
      { scopes: [] },
      { scopes: ['write'] },
      { scopes: ['read', 'read'] },
      { expiresInDays: 0 },
      { expiresInDays: 366 },
      { expiresInDays: 1.5 },
    ]) {
      const res = await createKey(alice, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await createKey(alice, { org: 'some-org', skills: ['x'] })).status).toBe(400);
  });
});

describe('expiry', () => {
  it('stops a key at its time with 401 expired_key, and the list keeps showing it', async () => {
    const key = await keyWith(alice, { name: 'short', expiresInDays: 1 });
    expect((await withKey(stack, key, '/api/me', { method: 'GET' })).status).toBe(200);
    const { keys } = await json(await alice.session('/api/api-keys'));
    const listed = keys.find((k: { name: string }) => k.name === 'short');
    expect(Date.parse(listed.expiresAt) - Date.parse(listed.createdAt)).toBe(86_400_000);
    stack.setNow(new Date(Date.parse(listed.expiresAt) + 1));
    try {
      for (const [path, method] of [
        ['/api/me', 'GET'],
        ['/api/publish', 'POST'],
      ] as const) {
        const res = await withKey(stack, key, path, { method, ...(method === 'POST' ? { body: skillBody() } : {}) });
        expect(res.status, path).toBe(401);
        expect((await json(res)).error.code).toBe('expired_key');
      }
      expect((await json(await alice.session('/api/api-keys'))).keys.map((k: { name: string }) => k.name)).toContain('short');
    } finally {
      stack.setNow(undefined);
    }
  });
});

describe('narrowing', () => {
  it('to skills: touches those and nothing else, and publishes no new skill', async () => {
    const full = await keyWith(alice, {});
    const mine = await json(await publish(full));
    const other = await json(await publish(full));
    const narrow = await keyWith(alice, { skills: [mine.id] });
    const ok = await withKey(stack, narrow, `/api/skills/${mine.id}/versions`, { body: { version: '2.0.0', files: [skillFile(mine.slug, '2')] } });
    expect(ok.status).toBe(201);
    const elsewhere = await withKey(stack, narrow, `/api/skills/${other.id}/versions`, { body: { version: '2.0.0', files: [skillFile(other.slug, '2')] } });
    expect(elsewhere.status).toBe(403);
    expect((await json(elsewhere)).error).toMatchObject({ code: 'insufficient_scope', details: { scope: 'publish' } });
    expect((await publish(narrow)).status).toBe(403);
    // Narrowed to a skill that does not exist: refused when made.
    const unknown = await createKey(alice, { skills: ['00000000-0000-4000-8000-000000000000'] });
    expect(unknown.status).toBe(404);
  });

  it('to an organisation: only by its members, recorded in its log, and never reaching what a user owns', async () => {
    expect((await alice.session('/api/orgs', { method: 'POST', body: { login: 'keys-org', name: 'Keys' } })).status).toBe(201);
    const eve = await Client.signIn(stack, 'eve');
    expect((await createKey(eve, { org: 'keys-org' })).status).toBe(403);
    expect((await createKey(alice, { org: 'no-such-org' })).status).toBe(404);
    const res = await createKey(alice, { name: 'ci for keys-org', org: 'KEYS-ORG', scopes: ['publish', 'read'], expiresInDays: 30 });
    expect(res.status).toBe(201);
    const created = await json(res);
    expect(created).toMatchObject({ org: 'keys-org', scopes: ['publish', 'read'], skills: null, expiresAt: expect.any(String) });
    const refused = await publish(created.key);
    expect(refused.status).toBe(403);
    expect((await json(refused)).error.code).toBe('insufficient_scope');
    expect((await alice.session(`/api/api-keys/${created.id}`, { method: 'DELETE' })).status).toBe(204);
    const { entries } = await json(await alice.session('/api/orgs/keys-org/audit'));
    expect(entries.map((e: { action: string; target: string }) => [e.action, e.target])).toEqual([
      ['key.revoked', created.id],
      ['key.created', created.id],
    ]);
    expect(JSON.stringify(entries)).not.toContain(created.key.slice(3, 10));
  });
});
