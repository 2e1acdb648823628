import { beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestStack, json, skillBody, type TestStack, withKey } from '../support/stack.ts';

let stack: TestStack;
let alice: Client;
let aliceKey: string;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
  alice = await Client.signIn(stack, 'alice');
  aliceKey = await alice.createKey();
});

describe('GET /api/me/skills', () => {
  it("lists the signed-in author's skills, newest first, and nobody else's", async () => {
    const bob = await Client.signIn(stack, 'bob');
    const bobKey = await bob.createKey();
    const published: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await withKey(stack, aliceKey, '/api/publish', { body: skillBody({ paid: i === 1 }) });
      expect(res.status).toBe(201);
      published.push((await json(res)).id);
    }
    expect((await withKey(stack, bobKey, '/api/publish', { body: skillBody() })).status).toBe(201);

    const res = await alice.session('/api/me/skills');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { skills } = await json<{ skills: { id: string; author: string; paid: boolean; currentVersion: string }[] }>(res);
    expect(skills.map((s) => s.id)).toEqual([...published].reverse());
    expect(skills.every((s) => s.author === 'alice' && s.currentVersion === '1.0.0')).toBe(true);
    expect(skills.map((s) => s.paid)).toEqual([false, true, false]);
    expect(Object.keys(skills[0]!).sort()).toEqual([
      'author',
      'category',
      'createdAt',
      'currentVersion',
      'description',
      'formats',
      'id',
      'name',
      'owner',
      'paid',
      'slug',
      'updatedAt',
      'visibility',
    ]);

    const carol = await Client.signIn(stack, 'carol');
    expect(await json(await carol.session('/api/me/skills'))).toEqual({ skills: [] });
  });

  it('takes a session only: 401 without one and with an API key', async () => {
    const anonymous = await stack.request('/api/me/skills');
    expect(anonymous.status).toBe(401);
    expect((await json(anonymous)).error.code).toBe('unauthenticated');
    const withApiKey = await withKey(stack, aliceKey, '/api/me/skills', { method: 'GET' });
    expect(withApiKey.status).toBe(401);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await json(await stack.request('/api/openapi.json'));
    expect(doc.paths['/api/me/skills'].get.security).toEqual([{ session: [] }]);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/auth/methods', '/api/registry/{slug}', '/.well-known/skills.json']));
  });
});

describe('GET /api/auth/methods', () => {
  it('tells the dashboard whether dev sign-in is on', async () => {
    expect(await json(await stack.request('/api/auth/methods'))).toEqual({ devLogin: true });
    const production = await createTestStack({}, { SKILLPRESS_DEV_LOGIN: '0' });
    expect(await json(await production.request('/api/auth/methods'))).toEqual({ devLogin: false });
  });
});
