import { beforeAll, describe, expect, it } from 'vitest';
import { limits } from '#core/limits';
import { Client, createTestStack, json, skillBody, skillFile, type TestStack, withKey } from '../support/stack.ts';

/**
 * `GET /api/resolve` (docs/api.md §7.17): many skills' registry documents in one request, each
 * the one its per-skill lookup gives, with per-skill refusals; private skills only to members.
 */

let stack: TestStack;
let aliceKey: string;
let memberKey: string;
let strangerKey: string;
let first: { id: string; slug: string };
let second: { id: string; slug: string };
let hidden: { id: string; slug: string };

async function publish(key: string, overrides: Record<string, unknown> = {}): Promise<{ id: string; slug: string }> {
  const res = await withKey(stack, key, '/api/publish', { body: skillBody(overrides) });
  expect(res.status, await res.clone().text()).toBe(201);
  return json(res);
}

const resolve = (skills: string, key?: string) =>
  stack.request(`/api/resolve?skills=${encodeURIComponent(skills)}`, key ? { headers: { authorization: `Bearer ${key}` } } : {});

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
  const alice = await Client.signIn(stack, 'alice');
  aliceKey = await alice.createKey();
  strangerKey = await (await Client.signIn(stack, 'stranger')).createKey();
  const mel = await Client.signIn(stack, 'mel');
  expect((await alice.session('/api/orgs', { method: 'POST', body: { login: 'acme', name: 'Acme' } })).status).toBe(201);
  expect((await alice.session('/api/orgs/acme/invitations', { method: 'POST', body: { login: 'mel', role: 'member' } })).status).toBe(201);
  expect((await mel.session('/api/orgs/acme/invitations/mel/accept', { method: 'POST' })).status).toBe(200);
  memberKey = await mel.createKey();
  first = await publish(aliceKey);
  second = await publish(aliceKey);
  hidden = await publish(aliceKey, { owner: 'acme', visibility: 'private' });
  const res = await withKey(stack, aliceKey, `/api/skills/${second.id}/versions`, {
    body: { version: '1.1.0', changelog: 'Changes', files: [skillFile(second.slug, '# v1.1.0')] },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  await stack.idle();
});

describe('GET /api/resolve', () => {
  it('answers each skill asked for, in order, with the document its own lookup gives, and no cache may keep it', async () => {
    const res = await resolve(`${second.slug},${first.slug}@latest`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const { skills } = await json(res);
    expect(skills.map((entry: { slug: string }) => entry.slug)).toEqual([second.slug, first.slug]);
    expect(skills[0].registry).toEqual(await json(await stack.request(`/api/registry/${second.slug}`)));
    expect(skills[1].registry).toEqual(await json(await stack.request(`/api/registry/${first.slug}`)));
    // latest, or a version the document lists, needs nothing more.
    expect(skills[0].versions).toBeUndefined();
    expect((await json(await resolve(`${second.slug}@1.1.0`))).skills[0].versions).toBeUndefined();
  });

  it('answers what the registry holds after a write, not a copy it read before', async () => {
    const fresh = await publish(aliceKey);
    await stack.idle();
    expect((await json(await resolve(fresh.slug))).skills[0].registry.currentVersion).toBe('1.0.0');
    const res = await withKey(stack, aliceKey, `/api/skills/${fresh.id}/versions`, {
      body: { version: '1.0.1', changelog: 'Changes', files: [skillFile(fresh.slug, '# v1.0.1')] },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    await stack.idle();
    const { skills } = await json(await resolve(fresh.slug));
    expect(skills[0].registry).toEqual(await json(await stack.request(`/api/registry/${fresh.slug}`)));
    expect(skills[0].registry.currentVersion).toBe('1.0.1');
  });

  it('adds the versions document when the spec may choose a version the document does not list', async () => {
    const { skills } = await json(await resolve(`${second.slug}@^1.0.0,${first.slug}@0.0.1`));
    expect(skills[0].versions).toEqual(await json(await stack.request(`/api/registry/${second.slug}/versions`)));
    expect(skills[1].versions).toEqual(await json(await stack.request(`/api/registry/${first.slug}/versions`)));
    expect(skills[0].versions.versions.map((v: { version: string }) => v.version)).toEqual(['1.1.0', '1.0.0']);
  });

  it('refuses a bad or unknown entry in its place, in the error shape, and answers the others', async () => {
    const { skills } = await json(await resolve(`Bad_Slug,${first.slug}@not a range,no-such-skill-here,${first.slug}`));
    expect(skills[0]).toEqual({ slug: 'Bad_Slug', error: { code: 'invalid_request', message: expect.stringContaining('not a skill slug') } });
    expect(skills[1]).toEqual({
      slug: first.slug,
      error: { code: 'invalid_request', message: expect.stringContaining('neither a version nor a semver range') },
    });
    expect(skills[2]).toEqual({ slug: 'no-such-skill-here', error: { code: 'not_found', message: 'No skill "no-such-skill-here"' } });
    expect(skills[3].registry.slug).toBe(first.slug);
  });

  it('refuses a list over its limits as a whole, in the error shape', async () => {
    const many = Array.from({ length: limits.resolveSkills + 1 }, (_, i) => `skill-${i}`).join(',');
    const res = await resolve(many);
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe('invalid_request');
    expect((await resolve('a'.repeat(limits.resolveChars + 1))).status).toBe(400);
    expect((await stack.request('/api/resolve')).status).toBe(400);
    expect((await stack.request(`/api/resolve?skills=${first.slug}&skills=${second.slug}`)).status).toBe(400);
  });

  it('answers a private skill to its members only; to anyone else it is a slug nobody holds', async () => {
    const ofMember = (await json(await resolve(hidden.slug, memberKey))).skills[0];
    expect(ofMember.registry).toEqual(
      await json(await stack.request(`/api/me/registry/${hidden.slug}`, { headers: { authorization: `Bearer ${memberKey}` } })),
    );
    expect(ofMember.registry.visibility).toBe('private');
    const nobody = { code: 'not_found', message: `No skill ${JSON.stringify(hidden.slug)}` };
    expect((await json(await resolve(hidden.slug))).skills[0]).toEqual({ slug: hidden.slug, error: nobody });
    expect((await json(await resolve(hidden.slug, strangerKey))).skills[0]).toEqual({ slug: hidden.slug, error: nobody });
    const unknown = (await json(await resolve('no-skill-at-all', strangerKey))).skills[0];
    expect(unknown.error.code).toBe(nobody.code);
  });

  it('refuses a key that is not a live one as a whole', async () => {
    const res = await resolve(first.slug, 'sk_not_a_key');
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe('unauthenticated');
  });
});
