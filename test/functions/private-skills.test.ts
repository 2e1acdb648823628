import { ListObjectsV2Command, GetObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestStack, json, skillBody, skillFile, type TestStack, withKey } from '../support/stack.ts';

/**
 * Publishing into an organisation, private skills (no static file anywhere; the API serves them
 * to members), making them public, and transfers. The attacker's side is attacks.test.ts.
 */

let stack: TestStack;
let olive: Client;
let mia: Client;
let mel: Client;
let maintainerKey: string;
let memberReadKey: string;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000' });
  [olive, mia, mel] = (await Promise.all(['olive', 'mia', 'mel'].map((login) => Client.signIn(stack, login)))) as [Client, Client, Client];
  expect((await olive.session('/api/orgs', { method: 'POST', body: { login: 'acme', name: 'Acme' } })).status).toBe(201);
  for (const [client, login, role] of [
    [mia, 'mia', 'maintainer'],
    [mel, 'mel', 'member'],
  ] as const) {
    expect((await olive.session('/api/orgs/acme/invitations', { method: 'POST', body: { login, role } })).status).toBe(201);
    expect((await client.session(`/api/orgs/acme/invitations/${login}/accept`, { method: 'POST' })).status).toBe(200);
  }
  maintainerKey = await mia.createKey();
  const res = await mel.session('/api/api-keys', { method: 'POST', body: { name: 'install', scopes: ['read'] } });
  memberReadKey = (await json(res)).key;
});

async function publishPrivate(overrides: Record<string, unknown> = {}): Promise<{ id: string; slug: string }> {
  const res = await withKey(stack, maintainerKey, '/api/publish', { body: skillBody({ owner: 'acme', visibility: 'private', ...overrides }) });
  expect(res.status, await res.clone().text()).toBe(201);
  return json(res);
}

async function staticObjects(): Promise<Map<string, string>> {
  await stack.idle();
  const objects = new Map<string, string>();
  let token: string | undefined;
  do {
    const page = await stack.deps.s3.send(new ListObjectsV2Command({ Bucket: stack.config.staticBucket, ContinuationToken: token }));
    for (const object of page.Contents ?? []) {
      const body = await stack.deps.s3.send(new GetObjectCommand({ Bucket: stack.config.staticBucket, Key: object.Key! }));
      objects.set(object.Key!, Buffer.from(await body.Body!.transformToByteArray()).toString('latin1'));
    }
    token = page.NextContinuationToken;
  } while (token);
  return objects;
}

describe('publishing into an organisation', () => {
  it('makes the organisation the owner, records who published, and counts against the publisher’s rate limit', async () => {
    const res = await withKey(stack, maintainerKey, '/api/publish', { body: skillBody({ owner: 'ACME' }) });
    expect(res.status).toBe(201);
    expect(res.headers.get('ratelimit-limit')).toBe('1000');
    const skill = await json(res);
    expect(skill).toMatchObject({ author: 'acme', owner: { type: 'org', login: 'acme' }, visibility: 'public' });
    await stack.idle();
    const registry = await json(await stack.request(`/api/registry/${skill.slug}`));
    expect(registry).toMatchObject({ author: 'acme', owner: { type: 'org', login: 'acme' } });
    expect(registry.versions[0].publishedBy).toBe('mia');
    const page = await json(await stack.request('/api/orgs/acme'));
    expect(page.skills.map((s: { slug: string }) => s.slug)).toContain(skill.slug);
  });

  it('needs a maintainer or an owner of it', async () => {
    const memberKey = await mel.createKey();
    expect((await withKey(stack, memberKey, '/api/publish', { body: skillBody({ owner: 'acme' }) })).status).toBe(403);
    const stranger = await (await Client.signIn(stack, 'stranger')).createKey();
    expect((await withKey(stack, stranger, '/api/publish', { body: skillBody({ owner: 'acme' }) })).status).toBe(403);
    expect((await withKey(stack, stranger, '/api/publish', { body: skillBody({ owner: 'no-such-org' }) })).status).toBe(404);
  });

  it('refuses a private skill that is not an organisation’s, or that is paid', async () => {
    for (const body of [
      skillBody({ visibility: 'private' }),
      skillBody({ owner: 'mia', visibility: 'private' }),
      skillBody({ owner: 'acme', visibility: 'private', paid: true }),
    ]) {
      const res = await withKey(stack, maintainerKey, '/api/publish', { body });
      expect(res.status, JSON.stringify(body.owner)).toBe(400);
      expect((await json(res)).error.details.issues[0].path).toEqual(['visibility']);
    }
  });
});

describe('a private skill', () => {
  it('has no static file anywhere: registry, versions, bundles, catalog, discovery index, archives', async () => {
    const skill = await publishPrivate();
    const version = await withKey(stack, maintainerKey, `/api/skills/${skill.id}/versions`, {
      body: { version: '1.1.0', files: [skillFile(skill.slug, 'more')] },
    });
    expect(version.status).toBe(201);
    for (const [key, body] of await staticObjects()) {
      expect(key.includes(skill.slug) || body.includes(skill.slug) || body.includes(skill.id), key).toBe(false);
    }
    for (const path of [`/api/registry/${skill.slug}`, `/api/registry/${skill.slug}/versions`, `/bundles/${skill.slug}/1.0.0.json`]) {
      expect((await stack.request(path)).status, path).toBe(404);
    }
  });

  it('is read by its members through the API, privately, and delivered to them', async () => {
    const skill = await publishPrivate();
    for (const read of [
      () => mel.session(`/api/me/registry/${skill.slug}`),
      () => withKey(stack, memberReadKey, `/api/me/registry/${skill.slug}`, { method: 'GET' }),
    ]) {
      const res = await read();
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      expect(await json(res)).toMatchObject({
        id: skill.id,
        slug: skill.slug,
        visibility: 'private',
        owner: { type: 'org', login: 'acme' },
        currentVersion: '1.0.0',
      });
    }
    const versions = await withKey(stack, memberReadKey, `/api/me/registry/${skill.slug}/versions`, { method: 'GET' });
    expect(await json(versions)).toMatchObject({ slug: skill.slug, versions: [{ version: '1.0.0', publishedBy: 'mia' }] });
    const delivered = await withKey(stack, memberReadKey, `/api/deliver/${skill.id}?source=cli`, { method: 'GET' });
    expect(delivered.status).toBe(200);
    expect(delivered.headers.get('cache-control')).toBe('private, no-store');
    expect((await json(delivered)).slug).toBe(skill.slug);
    expect((await mel.session(`/api/deliver/${skill.id}`)).status).toBe(200);
    // Members read its analytics; the installs above are there.
    const analytics = await json(await mel.session(`/api/analytics/${skill.id}`));
    expect(analytics.total).toBe(2);
  });

  it('needs the read scope: a member’s publish-only key finds it but may not read it', async () => {
    const skill = await publishPrivate();
    const publishOnly = await json(await mia.session('/api/api-keys', { method: 'POST', body: { name: 'p', scopes: ['publish'] } }));
    const res = await withKey(stack, publishOnly.key, `/api/deliver/${skill.id}`, { method: 'GET' });
    expect(res.status).toBe(403);
    expect((await json(res)).error).toMatchObject({ code: 'insufficient_scope', details: { scope: 'read' } });
  });

  it('takes its slug like any other: a new skill of that slug is slug_taken', async () => {
    const skill = await publishPrivate();
    const stranger = await (await Client.signIn(stack, 'slug-stranger')).createKey();
    const res = await withKey(stack, stranger, '/api/publish', { body: skillBody({ slug: skill.slug }) });
    expect(res.status).toBe(409);
    expect(await json(res)).toEqual({ error: { code: 'slug_taken', message: `The slug "${skill.slug}" belongs to another skill` } });
  });

  it('is a dependency only of its organisation’s private skills', async () => {
    const base = await publishPrivate();
    const publicDependent = await withKey(stack, maintainerKey, '/api/publish', {
      body: skillBody({ owner: 'acme', dependencies: { [base.slug]: '^1.0.0' } }),
    });
    expect(publicDependent.status).toBe(400);
    expect((await json(publicDependent)).error.message).toBe(`Unknown dependencies: ${base.slug}`);
    const privateDependent = await withKey(stack, maintainerKey, '/api/publish', {
      body: skillBody({ owner: 'acme', visibility: 'private', dependencies: { [base.slug]: '^1.0.0' } }),
    });
    expect(privateDependent.status).toBe(201);
  });
});

describe('visibility', () => {
  it('changes from private to public by an owner, and the static files follow at the rebuild', async () => {
    const skill = await publishPrivate();
    const byMaintainer = await withKey(stack, maintainerKey, `/api/skills/${skill.id}`, { method: 'PATCH', body: { visibility: 'public' } });
    expect(byMaintainer.status).toBe(403);
    const res = await olive.session(`/api/skills/${skill.id}`, { method: 'PATCH', body: { visibility: 'public' } });
    expect(res.status).toBe(200);
    expect((await json(res)).visibility).toBe('public');
    await stack.idle();
    expect((await stack.request(`/api/registry/${skill.slug}`)).status).toBe(200);
    expect((await stack.request(`/bundles/${skill.slug}/1.0.0.json`)).status).toBe(200);
    const catalog = await json(await stack.request('/.well-known/skills.json'));
    expect(catalog.skills.map((s: { slug: string }) => s.slug)).toContain(skill.slug);
    const index = await json(await stack.request('/.well-known/agent-skills/index.json'));
    expect(index.skills.map((s: { name: string }) => s.name)).toContain(skill.slug);
    // Never back: installs of it must keep working.
    const back = await olive.session(`/api/skills/${skill.id}`, { method: 'PATCH', body: { visibility: 'private' } });
    expect(back.status).toBe(409);
    expect((await json(back)).error.code).toBe('visibility_locked');
  });

  it('stays private while any version depends on a private skill (409 private_dependency): its slug would reach static files', async () => {
    const base = await publishPrivate();
    const dependent = await publishPrivate({ dependencies: { [base.slug]: '^1.0.0' } });
    // The current version no longer depends on it; 1.0.0, listed and installable, still does.
    const next = await withKey(stack, maintainerKey, `/api/skills/${dependent.id}/versions`, {
      body: { version: '1.1.0', files: [skillFile(dependent.slug, '# 1.1')] },
    });
    expect(next.status).toBe(201);
    const refused = await olive.session(`/api/skills/${dependent.id}`, { method: 'PATCH', body: { visibility: 'public' } });
    expect(refused.status).toBe(409);
    expect((await json(refused)).error).toMatchObject({ code: 'private_dependency', details: { dependencies: [base.slug] } });
    const objects = await staticObjects();
    expect([...objects.entries()].filter(([key, text]) => key.includes(dependent.slug) || text.includes(base.slug))).toEqual([]);
    // Its dependency made public first, it follows.
    expect((await olive.session(`/api/skills/${base.id}`, { method: 'PATCH', body: { visibility: 'public' } })).status).toBe(200);
    expect((await olive.session(`/api/skills/${dependent.id}`, { method: 'PATCH', body: { visibility: 'public' } })).status).toBe(200);
  });

  it('of a public skill is locked, a user’s included', async () => {
    const key = await olive.createKey();
    const mine = await json(await withKey(stack, key, '/api/publish', { body: skillBody() }));
    const res = await withKey(stack, key, `/api/skills/${mine.id}`, { method: 'PATCH', body: { visibility: 'private' } });
    expect(res.status).toBe(409);
    expect((await json(res)).error.code).toBe('visibility_locked');
  });
});

describe('transfers', () => {
  it('move a user’s skill into an organisation they maintain, keeping its slug; the registry follows', async () => {
    const key = await mia.createKey();
    const skill = await json(await withKey(stack, key, '/api/publish', { body: skillBody() }));
    const res = await withKey(stack, key, `/api/skills/${skill.id}/transfer`, { body: { to: 'acme' } });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ id: skill.id, slug: skill.slug, author: 'acme', owner: { type: 'org', login: 'acme' } });
    await stack.idle();
    expect(await json(await stack.request(`/api/registry/${skill.slug}`))).toMatchObject({
      slug: skill.slug,
      author: 'acme',
      owner: { type: 'org', login: 'acme' },
    });
    const catalog = await json(await stack.request('/.well-known/skills.json'));
    expect(catalog.skills.find((s: { id: string }) => s.id === skill.id)).toMatchObject({ author: 'acme' });
    expect((await json(await mia.session('/api/me/skills'))).skills.map((s: { id: string }) => s.id)).not.toContain(skill.id);
    // It is the organisation's now: Mia publishes versions as its maintainer; Mel, a member, does not.
    expect((await withKey(stack, key, `/api/skills/${skill.id}/versions`, { body: { version: '1.0.1', files: [skillFile(skill.slug, 'x')] } })).status).toBe(
      201,
    );
    const melKey = await mel.createKey();
    expect((await withKey(stack, melKey, `/api/skills/${skill.id}/versions`, { body: { version: '1.0.2', files: [skillFile(skill.slug, 'x')] } })).status).toBe(
      403,
    );
    const log = await json(await olive.session('/api/orgs/acme/audit'));
    expect(log.entries.map((e: { action: string }) => e.action)).toContain('skill.transferred');
  });

  it('between organisations need an owner of both; an org that owns skills cannot be deleted', async () => {
    expect((await mia.session('/api/orgs', { method: 'POST', body: { login: 'acme-labs', name: 'Labs' } })).status).toBe(201);
    const skill = await publishPrivate();
    // Mia owns acme-labs but only maintains acme: not hers to move.
    const byMaintainer = await withKey(stack, maintainerKey, `/api/skills/${skill.id}/transfer`, { body: { to: 'acme-labs' } });
    expect(byMaintainer.status).toBe(403);
    // Olive owns acme, not acme-labs.
    const notOwnerOfTarget = await olive.session(`/api/skills/${skill.id}/transfer`, { method: 'POST', body: { to: 'acme-labs' } });
    expect(notOwnerOfTarget.status).toBe(403);
    expect((await olive.session(`/api/skills/${skill.id}/transfer`, { method: 'POST', body: { to: 'mia' } })).status).toBe(404);
    expect((await olive.session('/api/orgs/acme', { method: 'DELETE' })).status).toBe(409);
  });
});
