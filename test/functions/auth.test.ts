import { beforeAll, describe, expect, it } from 'vitest';
import { upsertUser } from '#functions/store/users';
import { Client, createTestStack, json, ORIGIN, skillBody, type TestStack, withKey } from '../support/stack.ts';
import { GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { hashSecret } from '#functions/platform/secrets';
import { sessionKey } from '#functions/store/keys';

let stack: TestStack;
beforeAll(async () => {
  stack = await createTestStack();
});

describe('dev sign-in and sessions', () => {
  it('signs in with a HttpOnly, SameSite=Lax session cookie and answers /api/me', async () => {
    const res = await stack.request('/api/auth/dev-login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: ORIGIN },
      body: '{"login":"alice"}',
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ user: { id: 'dev:alice', login: 'alice' } });
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^skillpress_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    const me = await stack.request('/api/me', { headers: { cookie: cookie.split(';')[0]! } });
    expect(await json(me)).toEqual({ user: { id: 'dev:alice', login: 'alice' }, admin: false });
  });

  it('stores only the hash of the session token', async () => {
    const alice = await Client.signIn(stack, 'hash-check');
    const token = alice.cookie!.split('=')[1]!;
    const { Items } = await stack.deps.db.doc.send(new ScanCommand({ TableName: stack.deps.db.table }));
    expect(JSON.stringify(Items)).not.toContain(token);
  });

  it('answers /api/me with 401 without a session or with a bogus one, and for a valid API key with its owner', async () => {
    expect((await stack.request('/api/me')).status).toBe(401);
    const bogus = await stack.request('/api/me', { headers: { cookie: 'skillpress_session=nope' } });
    expect(bogus.status).toBe(401);
    expect(await json(bogus)).toEqual({ error: { code: 'unauthenticated', message: expect.any(String) } });
    const alice = await Client.signIn(stack, 'alice');
    const key = await alice.createKey();
    const me = await withKey(stack, key, '/api/me', { method: 'GET' });
    expect(me.status).toBe(200);
    expect(await json(me)).toEqual({ user: { id: 'dev:alice', login: 'alice' }, admin: false });
    // A key decides alone when one is sent: a wrong key with a good cookie is still a 401.
    expect((await stack.request('/api/me', { headers: { authorization: 'Bearer sk_wrong', cookie: alice.cookie! } })).status).toBe(401);
    // Session-only endpoints still refuse a key.
    expect((await withKey(stack, key, '/api/me/skills', { method: 'GET' })).status).toBe(401);
  });

  it('rejects an expired session', async () => {
    const carol = await Client.signIn(stack, 'carol');
    stack.setNow(new Date(Date.now() + 31 * 24 * 3600 * 1000));
    try {
      expect((await carol.session('/api/me')).status).toBe(401);
    } finally {
      stack.setNow(new Date());
    }
  });

  it('takes a damaged session item for none: 401, and signing in again works', async () => {
    const dave = await Client.signIn(stack, 'dave');
    const token = dave.cookie!.split('=')[1]!;
    await stack.deps.db.doc.send(
      new UpdateCommand({
        TableName: stack.deps.db.table,
        Key: sessionKey(hashSecret(token)),
        UpdateExpression: 'SET expiresAt = :bad',
        ExpressionAttributeValues: { ':bad': 'soon' },
      }),
    );
    const me = await dave.session('/api/me');
    expect([me.status, (await json(me)).error.code]).toEqual([401, 'unauthenticated']);
    expect((await (await Client.signIn(stack, 'dave')).session('/api/me')).status).toBe(200);
  });

  it('logs out: 204, the cookie cleared and the session gone', async () => {
    const bob = await Client.signIn(stack, 'bob');
    const out = await bob.session('/api/auth/logout', { method: 'POST' });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/skillpress_session=;/);
    expect((await bob.session('/api/me')).status).toBe(401);
  });

  it('rejects a bad login with 400 and an unknown field with 400', async () => {
    for (const body of ['{"login":"../x"}', '{"login":"alice","admin":true}', '{}', 'null']) {
      const res = await stack.request('/api/auth/dev-login', { method: 'POST', headers: { 'content-type': 'application/json', origin: ORIGIN }, body });
      expect(res.status, body).toBe(400);
      expect((await json(res)).error.code).toBe('invalid_request');
    }
  });

  it('is a 404 when dev sign-in is disabled', async () => {
    const prod = await createTestStack({}, { SKILLPRESS_DEV_LOGIN: '0' });
    const res = await prod.request('/api/auth/dev-login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"login":"alice"}' });
    expect(res.status).toBe(404);
    expect((await json(res)).error.code).toBe('not_found');
  });
});

describe('CSRF', () => {
  it('rejects a session-authenticated write without the site Origin with 403 csrf_rejected', async () => {
    const alice = await Client.signIn(stack, 'alice');
    for (const origin of [undefined, 'https://evil.example', 'null']) {
      const res = await stack.request('/api/api-keys', {
        method: 'POST',
        headers: { cookie: alice.cookie!, 'content-type': 'application/json', ...(origin ? { origin } : {}) },
        body: '{"name":"x"}',
      });
      expect(res.status, String(origin)).toBe(403);
      expect((await json(res)).error.code).toBe('csrf_rejected');
    }
    const keys = await json(await alice.session('/api/api-keys'));
    expect(keys.keys.map((k: { name: string }) => k.name)).not.toContain('x');
  });

  it('signs in by dev sign-in only from the site: no Origin, another site or a rebound host is 403 csrf_rejected, and no session is made', async () => {
    const devLogin = (url: string, origin?: string) =>
      stack.request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) }, body: '{"login":"mallory"}' });
    for (const [url, origin] of [
      ['/api/auth/dev-login', undefined],
      ['/api/auth/dev-login', 'https://evil.example'],
      // DNS rebinding: the attacker's name resolved to this machine, Origin and Host agree.
      ['http://rebound.example:8787/api/auth/dev-login', 'http://rebound.example:8787'],
    ] as const) {
      const res = await devLogin(url, origin);
      expect(res.status, `${url} ${origin}`).toBe(403);
      expect((await json(res)).error.code).toBe('csrf_rejected');
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    // What a curl user gets without the header: what to send, and how.
    expect((await json(await devLogin('/api/auth/dev-login'))).error.message).toContain(`-H "origin: ${ORIGIN}"`);
    expect((await devLogin('/api/auth/dev-login', ORIGIN)).status).toBe(200);
    for (const local of ['http://127.0.0.1:8787', 'http://localhost:8787', 'http://[::1]:8787'])
      expect((await devLogin(`${local}/api/auth/dev-login`, local)).status, local).toBe(200);
  });

  it('without SITE_ORIGIN trusts only a loopback origin: a session write to a rebound host is refused even when Origin matches it', async () => {
    const alice = await Client.signIn(stack, 'alice');
    const res = await stack.request('http://rebound.example:8787/api/api-keys', {
      method: 'POST',
      headers: { cookie: alice.cookie!, 'content-type': 'application/json', origin: 'http://rebound.example:8787' },
      body: '{"name":"rebound"}',
    });
    expect(res.status).toBe(403);
    expect((await json(res)).error).toMatchObject({ code: 'csrf_rejected', message: expect.stringContaining('SITE_ORIGIN') });
    const keys = await json(await alice.session('/api/api-keys'));
    expect(keys.keys.map((k: { name: string }) => k.name)).not.toContain('rebound');
  });

  it('with SITE_ORIGIN trusts only it, whatever host the request was addressed to', async () => {
    const site = await createTestStack({}, { SITE_ORIGIN: 'https://skillpress.dev' });
    const alice = await Client.signIn(site, 'alice');
    const write = (url: string, origin: string) =>
      site.request(url, { method: 'POST', headers: { cookie: alice.cookie!, 'content-type': 'application/json', origin }, body: '{"name":"x"}' });
    expect((await write('http://127.0.0.1/api/api-keys', 'http://127.0.0.1')).status).toBe(403);
    expect((await write('http://internal.host/api/api-keys', 'https://skillpress.dev')).status).toBe(201);
    expect(ORIGIN).not.toBe('https://skillpress.dev');
  });
});

describe('API keys', () => {
  it('creates an sk_ key shown once, lists it by prefix only and stores only its hash', async () => {
    const alice = await Client.signIn(stack, 'keys-alice');
    const res = await alice.session('/api/api-keys', { method: 'POST', body: { name: 'laptop' } });
    expect(res.status).toBe(201);
    const created = await json(res);
    expect(created).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^sk_[A-Za-z0-9_-]{43}$/),
      name: 'laptop',
      prefix: created.key.slice(0, 7),
      createdAt: expect.any(String),
      scopes: ['publish', 'manage', 'read'],
      org: null,
      skills: null,
      expiresAt: null,
    });
    const list = await json(await alice.session('/api/api-keys'));
    expect(list).toEqual({
      keys: [
        {
          id: created.id,
          name: 'laptop',
          prefix: created.prefix,
          createdAt: created.createdAt,
          lastUsedAt: null,
          scopes: ['publish', 'manage', 'read'],
          org: null,
          skills: null,
          expiresAt: null,
        },
      ],
    });
    expect(JSON.stringify(list)).not.toContain(created.key);
    const { Items } = await stack.deps.db.doc.send(new ScanCommand({ TableName: stack.deps.db.table }));
    expect(JSON.stringify(Items)).not.toContain(created.key);
  });

  it('records lastUsedAt when a request the key authenticated succeeds', async () => {
    const alice = await Client.signIn(stack, 'keys-used');
    const key = await alice.createKey();
    expect((await withKey(stack, key, '/api/publish', { body: skillBody() })).status).toBe(201);
    const list = await json(await alice.session('/api/api-keys'));
    expect(list.keys[0].lastUsedAt).toEqual(expect.any(String));
  });

  it('refuses to create a key with an API key instead of a session (401)', async () => {
    const alice = await Client.signIn(stack, 'keys-bob');
    const key = await alice.createKey();
    const res = await withKey(stack, key, '/api/api-keys', { body: { name: 'sneaky' } });
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe('unauthenticated');
  });

  it('revokes a key: 204, then the key is rejected at once and gone from the list', async () => {
    const alice = await Client.signIn(stack, 'keys-carol');
    const res = await alice.session('/api/api-keys', { method: 'POST', body: { name: 'old' } });
    const { id, key } = await json(res);
    // Used once, so this process knows the key's owner and reads the two together from now on.
    expect((await withKey(stack, key, '/api/publish', { body: {} })).status).toBe(400);
    expect((await alice.session(`/api/api-keys/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await withKey(stack, key, '/api/publish', { body: { name: 'x', description: 'y', category: 'z' } })).status).toBe(401);
    expect((await json(await alice.session('/api/api-keys'))).keys).toEqual([]);
    expect((await alice.session(`/api/api-keys/${id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('authenticates a key as its owner is now: a changed login shows on the next request', async () => {
    const alice = await Client.signIn(stack, 'keys-renamed');
    const key = await alice.createKey();
    const first = await json(await withKey(stack, key, '/api/publish', { body: skillBody({ name: 'Before rename' }) }));
    expect(first.author).toBe('keys-renamed');
    // Signing in again after renaming the account on GitHub refreshes the user item.
    await upsertUser(stack.deps.db, { id: 'dev:keys-renamed', login: 'keys-renamed-later' }, new Date());
    const second = await json(await withKey(stack, key, '/api/publish', { body: skillBody({ name: 'After rename' }) }));
    expect(second.author).toBe('keys-renamed-later');
  });

  it("cannot revoke someone else's key (404) and leaves it working", async () => {
    const owner = await Client.signIn(stack, 'keys-owner');
    const thief = await Client.signIn(stack, 'keys-thief');
    const { id, key } = await json(await owner.session('/api/api-keys', { method: 'POST', body: { name: 'mine' } }));
    const res = await thief.session(`/api/api-keys/${id}`, { method: 'DELETE' });
    expect(res.status).toBe(404);
    const { Item } = await stack.deps.db.doc.send(new GetCommand({ TableName: stack.deps.db.table, Key: { pk: 'USER#dev:keys-owner', sk: 'USER' } }));
    expect(Item).toBeDefined();
    expect((await withKey(stack, key, '/api/publish', { body: {} })).status).toBe(400);
  });

  it('rejects a key body without a name (400) and one that is not JSON (415)', async () => {
    const alice = await Client.signIn(stack, 'keys-dave');
    expect((await alice.session('/api/api-keys', { method: 'POST', body: {} })).status).toBe(400);
    const res = await stack.request('/api/api-keys', {
      method: 'POST',
      headers: { cookie: alice.cookie!, origin: ORIGIN, 'content-type': 'text/plain' },
      body: 'name=x',
    });
    expect(res.status).toBe(415);
    expect((await json(res)).error.code).toBe('unsupported_media_type');
  });
});
