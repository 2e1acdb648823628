import { BlobCache } from '#functions/content/blob-cache';
import { createHash } from 'node:crypto';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { blobKey } from '#functions/content/blobs';
import { createLogger } from '#functions/platform/log';
import { analytics, authorStack, deliver, issueToken, publish, type PublishedSkill } from '../support/delivery.ts';
import { Client, json, skillFile, type TestStack, withKey } from '../support/stack.ts';

const logLines: string[] = [];
let stack: TestStack;
let alice: Client;
let bob: Client;
let carol: Client;
let aliceKey: string;
let bobKey: string;

const SECRET_CONTENT = 'Paid instructions: the secret sauce is 42';

beforeAll(async () => {
  // Debug level, so the request log of every call below is captured and can be searched.
  ({ stack, alice, aliceKey } = await authorStack({ log: createLogger('debug', (line) => logLines.push(line)) }));
  bob = await Client.signIn(stack, 'bob');
  carol = await Client.signIn(stack, 'carol');
  bobKey = await bob.createKey();
});

let paidSkills = 0;
const paidSkill = () => {
  const slug = `paid-secret-${++paidSkills}`;
  return publish(stack, aliceKey, { paid: true, slug, files: [skillFile(slug, SECRET_CONTENT)] });
};

async function expectRefused(res: Response, status: number, code: string): Promise<void> {
  expect(res.status).toBe(status);
  const text = await res.text();
  expect(JSON.parse(text).error.code).toBe(code);
  expect(text).not.toContain('secret sauce');
}

describe('paid delivery', () => {
  let skill: PublishedSkill;
  beforeAll(async () => {
    skill = await paidSkill();
  });

  it('answers 402 payment_required without a token or session, and counts nothing', async () => {
    await expectRefused(await deliver(stack, skill.id), 402, 'payment_required');
    await expectRefused(await deliver(stack, skill.id, { version: '1.0.0', source: 'cli' }), 402, 'payment_required');
    expect((await analytics(alice, skill.id)).total).toBe(0);
  });

  it("answers 402 to another user's session, and to a stale session cookie", async () => {
    await expectRefused(await deliver(stack, skill.id, {}, bob), 402, 'payment_required');
    const stale = new Client(stack, 'skillpress_session=not-a-live-session');
    await expectRefused(await deliver(stack, skill.id, {}, stale), 402, 'payment_required');
  });

  it("delivers to the author's session, and does not take an API key as a session", async () => {
    const res = await deliver(stack, skill.id, {}, alice);
    expect(res.status).toBe(200);
    expect((await json(res)).files).toEqual([skillFile(skill.slug, SECRET_CONTENT)]);
    await expectRefused(await withKey(stack, aliceKey, `/api/deliver/${skill.id}`, { method: 'GET' }), 402, 'payment_required');
  });

  it('delivers with a valid token for this skill and counts it under its source', async () => {
    const fresh = await paidSkill();
    const { token } = await issueToken(alice, fresh.id);
    const res = await deliver(stack, fresh.id, { token, source: 'cli' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect((await json(res)).files[0].content).toBe(skillFile(fresh.slug, SECRET_CONTENT).content);
    expect((await analytics(alice, fresh.id)).bySource).toEqual({ cli: 1, web: 0, api: 0 });
  });

  it('answers 401 for a bogus, a revoked, an expired and a foreign-skill token, and counts nothing', async () => {
    const fresh = await paidSkill();
    const other = await paidSkill();
    const revoked = await issueToken(alice, fresh.id);
    expect((await alice.session(`/api/skills/${fresh.id}/download-tokens/${revoked.id}`, { method: 'DELETE' })).status).toBe(204);
    const foreign = await issueToken(alice, other.id);
    const expiring = await issueToken(alice, fresh.id, { expiresInSeconds: 60 });
    stack.setNow(new Date(Date.now() + 61_000));
    try {
      for (const token of ['dt_bogus', 'x', revoked.token, foreign.token, expiring.token]) {
        const res = await deliver(stack, fresh.id, { token, source: 'cli' });
        await expectRefused(res.clone(), 401, 'unauthenticated');
        expect(await res.text()).not.toContain(token);
      }
    } finally {
      stack.setNow(new Date());
    }
    const signedIn = await Client.signIn(stack, 'alice');
    expect((await analytics(signedIn, fresh.id)).total).toBe(0);
    // The foreign token still works for its own skill: refusing it elsewhere spent nothing.
    expect((await deliver(stack, other.id, { token: foreign.token })).status).toBe(200);
  });

  it('says why a token is refused, without echoing it', async () => {
    const fresh = await paidSkill();
    const other = await paidSkill();
    const foreign = await issueToken(alice, other.id);
    const once = await issueToken(alice, fresh.id, { maxUses: 1 });
    expect((await deliver(stack, fresh.id, { token: once.token })).status).toBe(200);
    const messages = [];
    for (const token of ['dt_nope', foreign.token, once.token]) messages.push((await json(await deliver(stack, fresh.id, { token }))).error.message);
    expect(messages).toEqual([expect.stringMatching(/unknown or was revoked/), expect.stringMatching(/another skill/), expect.stringMatching(/no uses left/)]);
  });

  it('lets a granted user download, and stops them once the grant is revoked', async () => {
    const fresh = await paidSkill();
    await expectRefused(await deliver(stack, fresh.id, {}, carol), 402, 'payment_required');
    const grant = await alice.session(`/api/skills/${fresh.id}/grants`, { method: 'POST', body: { login: 'carol' } });
    expect(grant.status).toBe(201);
    expect(await json(grant)).toEqual({ skillId: fresh.id, login: 'carol', grantedAt: expect.any(String) });
    expect((await deliver(stack, fresh.id, {}, carol)).status).toBe(200);
    await expectRefused(await deliver(stack, fresh.id, {}, bob), 402, 'payment_required');
    expect((await alice.session(`/api/skills/${fresh.id}/grants/CAROL`, { method: 'DELETE' })).status).toBe(204);
    await expectRefused(await deliver(stack, fresh.id, {}, carol), 402, 'payment_required');
  });

  it("does not spend a token's use when the session alone is entitled", async () => {
    const fresh = await paidSkill();
    const once = await issueToken(alice, fresh.id, { maxUses: 1 });
    expect((await deliver(stack, fresh.id, { token: once.token }, alice)).status).toBe(200);
    expect((await deliver(stack, fresh.id, { token: once.token })).status).toBe(200);
    await expectRefused(await deliver(stack, fresh.id, { token: once.token }), 401, 'unauthenticated');
  });

  it('spends no token use and counts nothing when the content cannot be read (500)', async () => {
    const content = `${SECRET_CONTENT} ${Math.random()}`;
    const file = skillFile('unreadable-paid', content);
    const fresh = await publish(stack, aliceKey, { paid: true, slug: 'unreadable-paid', files: [file] });
    const { token, id } = await issueToken(alice, fresh.id, { maxUses: 1 });
    // Damage the store: the blob behind the version disappears.
    const sha = createHash('sha256').update(file.content).digest('hex');
    await stack.deps.s3.send(new DeleteObjectCommand({ Bucket: stack.config.contentBucket, Key: blobKey(sha) }));
    // Publishing left the bytes in this process's blob cache; a fresh process would not have them.
    stack.deps.blobs.cache = new BlobCache(1024 * 1024);
    await expectRefused(await deliver(stack, fresh.id, { token }), 500, 'internal');
    expect((await analytics(alice, fresh.id)).total).toBe(0);
    const { tokens } = await json(await alice.session(`/api/skills/${fresh.id}/download-tokens`));
    expect(tokens.find((t: { id: string }) => t.id === id).uses).toBe(0);
  });

  it('admits exactly 3 of 20 concurrent deliveries with a maxUses 3 token, and counts exactly 3', async () => {
    const fresh = await paidSkill();
    const { token, id } = await issueToken(alice, fresh.id, { maxUses: 3 });
    const results = await Promise.all(Array.from({ length: 20 }, () => deliver(stack, fresh.id, { token, source: 'web' })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 401)).toHaveLength(17);
    expect(await analytics(alice, fresh.id)).toMatchObject({ total: 3, bySource: { cli: 0, web: 3, api: 0 } });
    const { tokens } = await json(await alice.session(`/api/skills/${fresh.id}/download-tokens`));
    expect(tokens.find((t: { id: string }) => t.id === id).uses).toBe(3);
  });
});

describe('download tokens', () => {
  it('issues a token to the author with an API key: 201 with id, token, expiresAt and maxUses', async () => {
    const skill = await paidSkill();
    stack.setNow('2026-06-01T00:00:00.000Z');
    try {
      const res = await withKey(stack, aliceKey, `/api/skills/${skill.id}/download-tokens`, { body: { expiresInSeconds: 3600, maxUses: 5 } });
      expect(res.status).toBe(201);
      expect(await json(res)).toEqual({
        id: expect.any(String),
        token: expect.stringMatching(/^dt_[A-Za-z0-9_-]{43}$/),
        expiresAt: '2026-06-01T01:00:00.000Z',
        maxUses: 5,
      });
      const unlimited = await json(await withKey(stack, aliceKey, `/api/skills/${skill.id}/download-tokens`, { body: {} }));
      expect(unlimited).toMatchObject({ expiresAt: '2026-06-02T00:00:00.000Z', maxUses: null });
    } finally {
      stack.setNow(new Date());
    }
  });

  it('stores tokens only as SHA-256: no table item holds the secret', async () => {
    const skill = await paidSkill();
    const { token } = await issueToken(alice, skill.id);
    const { Items } = await stack.deps.db.doc.send(new ScanCommand({ TableName: stack.deps.db.table }));
    const dump = JSON.stringify(Items);
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(token.slice(3));
    expect(Items!.some((item) => item.pk === `TOKEN#${createHash('sha256').update(token).digest('hex')}`)).toBe(true);
  });

  it('never writes a token into the logs', async () => {
    const skill = await paidSkill();
    const { token } = await issueToken(alice, skill.id, { maxUses: 1 });
    await deliver(stack, skill.id, { token });
    await deliver(stack, skill.id, { token });
    expect(logLines.some((line) => line.includes('/api/deliver/'))).toBe(true);
    expect(logLines.filter((line) => line.includes(token) || line.includes('secret sauce'))).toEqual([]);
  });

  it("lists the skill's tokens for the author with their uses and without their secrets", async () => {
    const skill = await paidSkill();
    const first = await issueToken(alice, skill.id);
    const second = await issueToken(alice, skill.id, { maxUses: 2 });
    await deliver(stack, skill.id, { token: second.token });
    const res = await withKey(stack, aliceKey, `/api/skills/${skill.id}/download-tokens`, { method: 'GET' });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(first.token);
    expect(text).not.toContain(second.token);
    const { tokens } = JSON.parse(text);
    expect(tokens.map((t: { id: string }) => t.id).sort()).toEqual([first.id, second.id].sort());
    expect(tokens.find((t: { id: string }) => t.id === second.id)).toEqual({
      id: second.id,
      createdAt: expect.any(String),
      expiresAt: second.expiresAt,
      maxUses: 2,
      uses: 1,
      lastUsedAt: expect.any(String),
    });
  });

  it('revokes a token with 204; a second revoke, an unknown id and a long id are 404', async () => {
    const skill = await paidSkill();
    const { id } = await issueToken(alice, skill.id);
    expect((await withKey(stack, aliceKey, `/api/skills/${skill.id}/download-tokens/${id}`, { method: 'DELETE' })).status).toBe(204);
    for (const tokenId of [id, 'nope', 'x'.repeat(3000)]) {
      const res = await withKey(stack, aliceKey, `/api/skills/${skill.id}/download-tokens/${tokenId}`, { method: 'DELETE' });
      expect(res.status).toBe(404);
    }
  });

  it("does not reach another skill's token through this skill's path", async () => {
    const mine = await paidSkill();
    const other = await paidSkill();
    const { id, token } = await issueToken(alice, other.id);
    expect((await alice.session(`/api/skills/${mine.id}/download-tokens/${id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await deliver(stack, other.id, { token })).status).toBe(200);
  });

  it('refuses token management to anyone but the author: 401 without credentials, 403 for others (402 to mint one), 403 without Origin', async () => {
    const skill = await paidSkill();
    const { id } = await issueToken(alice, skill.id);
    const base = `/api/skills/${skill.id}/download-tokens`;
    const anon = await stack.request(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(anon.status).toBe(401);
    for (const res of [await withKey(stack, bobKey, base, { method: 'GET' }), await withKey(stack, bobKey, `${base}/${id}`, { method: 'DELETE' })]) {
      expect(res.status).toBe(403);
      expect((await json(res)).error.code).toBe('forbidden');
    }
    // Minting is open to entitled users; bob is not one, so he is asked to pay, as delivery would.
    for (const res of [await withKey(stack, bobKey, base, { body: {} }), await bob.session(base, { method: 'POST', body: {} })]) {
      expect(res.status).toBe(402);
      expect((await json(res)).error.code).toBe('payment_required');
    }
    const noOrigin = await stack.request(base, { method: 'POST', headers: { cookie: alice.cookie!, 'content-type': 'application/json' }, body: '{}' });
    expect(noOrigin.status).toBe(403);
    expect((await json(noOrigin)).error.code).toBe('csrf_rejected');
    expect((await withKey(stack, aliceKey, '/api/skills/no-such-skill/download-tokens', { body: {} })).status).toBe(404);
  });

  it.each([
    [{ expiresInSeconds: 59 }],
    [{ expiresInSeconds: 2_592_001 }],
    [{ expiresInSeconds: 1.5 }],
    [{ maxUses: 0 }],
    [{ maxUses: -1 }],
    [{ maxUses: '3' }],
    [{ scope: 'all' }],
  ])('refuses the token body %j with 400 and issues nothing', async (body) => {
    const skill = await paidSkill();
    const res = await withKey(stack, aliceKey, `/api/skills/${skill.id}/download-tokens`, { body });
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe('invalid_request');
    const { tokens } = await json(await withKey(stack, aliceKey, `/api/skills/${skill.id}/download-tokens`, { method: 'GET' }));
    expect(tokens).toEqual([]);
  });
});

describe('grants', () => {
  it('lists grants for the author; granting twice keeps one grant', async () => {
    const skill = await paidSkill();
    const first = await json(await withKey(stack, aliceKey, `/api/skills/${skill.id}/grants`, { body: { login: 'bob' } }));
    const again = await withKey(stack, aliceKey, `/api/skills/${skill.id}/grants`, { body: { login: 'BOB' } });
    expect(again.status).toBe(201);
    expect(await json(again)).toEqual(first);
    const { grants } = await json(await alice.session(`/api/skills/${skill.id}/grants`));
    expect(grants).toEqual([{ skillId: skill.id, login: 'bob', grantedAt: first.grantedAt }]);
  });

  it('answers 404 for a login that never signed in and for revoking a grant that does not exist', async () => {
    const skill = await paidSkill();
    const unknown = await withKey(stack, aliceKey, `/api/skills/${skill.id}/grants`, { body: { login: 'nobody-here' } });
    expect(unknown.status).toBe(404);
    for (const login of ['bob', 'not a login', 'x'.repeat(2000)]) {
      expect((await withKey(stack, aliceKey, `/api/skills/${skill.id}/grants/${encodeURIComponent(login)}`, { method: 'DELETE' })).status).toBe(404);
    }
  });

  it('refuses grants to anyone but the author and checks the body', async () => {
    const skill = await paidSkill();
    const base = `/api/skills/${skill.id}/grants`;
    expect((await withKey(stack, bobKey, base, { body: { login: 'bob' } })).status).toBe(403);
    expect((await bob.session(base)).status).toBe(403);
    expect((await stack.request(base)).status).toBe(401);
    expect((await withKey(stack, aliceKey, base, { body: { login: 'bad login!' } })).status).toBe(400);
    expect((await withKey(stack, aliceKey, base, { body: { login: 'bob', extra: 1 } })).status).toBe(400);
    expect((await withKey(stack, aliceKey, base, { body: 'not json' })).status).toBe(400);
    await expectRefused(await deliver(stack, skill.id, {}, bob), 402, 'payment_required');
  });

  it('uses the site Origin check for session writes', async () => {
    const skill = await paidSkill();
    const res = await stack.request(`/api/skills/${skill.id}/grants`, {
      method: 'POST',
      headers: { cookie: alice.cookie!, origin: 'https://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'bob' }),
    });
    expect(res.status).toBe(403);
    expect((await json(res)).error.code).toBe('csrf_rejected');
  });
});
