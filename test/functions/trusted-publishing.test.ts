import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOidc, githubClaims, startFakeOidc } from '../support/fake-oidc.ts';
import { Client, createTestStack, json, ORIGIN, skillBody, skillFile, type TestStack, withKey } from '../support/stack.ts';

/**
 * Trusted publishing (docs/api.md §7.14): a skill trusts a CI workflow; the workflow's OIDC
 * token, verified against a fake issuer on loopback, becomes a 15-minute publish token for the
 * skills that trust it; what it publishes records the verified claims. Every claim wrong in turn
 * is refused, naming it.
 */

let oidc: FakeOidc;
let stack: TestStack;
let alice: Client;
let aliceKey: string;

beforeAll(async () => {
  oidc = await startFakeOidc();
  stack = await createTestStack(
    {},
    {
      SITE_ORIGIN: ORIGIN,
      SKILLPRESS_OIDC_ISSUER: oidc.issuer,
      SKILLPRESS_OIDC_JWKS_COOLDOWN_MS: '0',
      SKILLPRESS_VERSION_LIMIT: '1000',
      SKILLPRESS_PUBLISH_LIMIT: '1000',
    },
  );
  alice = await Client.signIn(stack, 'tp-alice');
  aliceKey = await alice.createKey();
});
afterAll(async () => {
  await stack.runtime.close();
  await oidc.close();
});

let repos = 0;
/** A skill of alice's that trusts `<repository>`'s publish.yml (and `environment`, if given). */
async function trustingSkill(environment?: string) {
  const repository = `octo/skills-${++repos}`;
  const res = await withKey(stack, aliceKey, '/api/publish', { body: skillBody() });
  expect(res.status).toBe(201);
  const skill = await json<{ id: string; slug: string }>(res);
  const added = await withKey(stack, aliceKey, `/api/skills/${skill.id}/trusted-publishers`, {
    body: { provider: 'github', repository, workflow: 'publish.yml', ...(environment ? { environment } : {}) },
  });
  expect(added.status, await added.clone().text()).toBe(201);
  return { ...skill, repository, publisher: await json<{ id: string }>(added) };
}

const exchange = (token: string) =>
  stack.request('/api/oidc/exchange', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });

async function refusedFor(token: string): Promise<string> {
  const res = await exchange(token);
  const body = await json(res);
  expect([res.status, body.error.code], JSON.stringify(body)).toEqual([401, 'invalid_oidc_token']);
  return body.error.details.claim;
}

const publishWith = (token: string, skill: { id: string; slug: string }, version: string, extra: Record<string, unknown> = {}) =>
  stack.request(`/api/skills/${skill.id}/versions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ version, files: [skillFile(skill.slug, `# ${version}`)], ...extra }),
  });

describe('trusted publishers', () => {
  it('are added, listed and removed by the owning side, and by no one else', async () => {
    const skill = await trustingSkill();
    const list = await json(await withKey(stack, aliceKey, `/api/skills/${skill.id}/trusted-publishers`, { method: 'GET' }));
    expect(list.publishers).toEqual([
      {
        id: skill.publisher.id,
        provider: 'github',
        repository: skill.repository,
        workflow: 'publish.yml',
        createdAt: expect.any(String),
        createdBy: 'tp-alice',
        active: true,
      },
    ]);
    const bobKey = await (await Client.signIn(stack, 'tp-bob')).createKey();
    const bob = await withKey(stack, bobKey, `/api/skills/${skill.id}/trusted-publishers`, {
      body: { provider: 'github', repository: 'bob/evil', workflow: 'publish.yml' },
    });
    expect([bob.status, (await json(bob)).error.code]).toEqual([403, 'forbidden']);
    const bad = await withKey(stack, aliceKey, `/api/skills/${skill.id}/trusted-publishers`, {
      body: { provider: 'github', repository: '../x', workflow: 'publish.sh' },
    });
    expect(bad.status).toBe(400);
    const removed = await withKey(stack, aliceKey, `/api/skills/${skill.id}/trusted-publishers/${skill.publisher.id}`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    expect((await json(await withKey(stack, aliceKey, `/api/skills/${skill.id}/trusted-publishers`, { method: 'GET' }))).publishers).toEqual([]);
  });
});

describe('a trusted publisher counts only while whoever added it may publish the skill', () => {
  const post = (client: Client, path: string, body?: unknown) => client.session(path, { method: 'POST', ...(body === undefined ? {} : { body }) });
  let orgs = 0;

  /** An organisation of alice's with mia as a maintainer, and a private skill of it that trusts a repository of mia's. */
  async function miasPublisher() {
    const org = `tp-org-${++orgs}`;
    const mia = await Client.signIn(stack, `tp-mia-${orgs}`);
    expect((await post(alice, '/api/orgs', { login: org, name: org })).status).toBe(201);
    expect((await post(alice, `/api/orgs/${org}/invitations`, { login: `tp-mia-${orgs}`, role: 'maintainer' })).status).toBe(201);
    expect((await post(mia, `/api/orgs/${org}/invitations/tp-mia-${orgs}/accept`)).status).toBe(200);
    const published = await withKey(stack, aliceKey, '/api/publish', { body: skillBody({ owner: org, visibility: 'private' }) });
    expect(published.status, await published.clone().text()).toBe(201);
    const skill = await json<{ id: string; slug: string }>(published);
    const repository = `mia/ci-${orgs}`;
    const added = await post(mia, `/api/skills/${skill.id}/trusted-publishers`, { provider: 'github', repository, workflow: 'publish.yml' });
    expect(added.status, await added.clone().text()).toBe(201);
    expect((await exchange(await oidc.mint(ORIGIN, githubClaims(repository)))).status).toBe(200);
    return { org, mia, login: `tp-mia-${orgs}`, skill, repository };
  }

  async function refusedWithoutTheSlug(repository: string, slug: string) {
    const res = await exchange(await oidc.mint(ORIGIN, githubClaims(repository)));
    const text = await res.text();
    expect([res.status, JSON.parse(text).error.code, JSON.parse(text).error.details.claim]).toEqual([401, 'invalid_oidc_token', 'repository']);
    expect(text).not.toContain(slug);
  }

  it('stops counting once that member is removed: no token, and the answer names no private slug', async () => {
    const { org, login, skill, repository } = await miasPublisher();
    expect((await alice.session(`/api/orgs/${org}/members/${login}`, { method: 'DELETE' })).status).toBe(204);
    await refusedWithoutTheSlug(repository, skill.slug);
    const list = await json(await alice.session(`/api/skills/${skill.id}/trusted-publishers`));
    expect(list.publishers.map((p: { createdBy: string; active: boolean }) => [p.createdBy, p.active])).toEqual([[login, false]]);
    // An owner confirms it by adding it again: it counts on their word from then on.
    expect((await post(alice, `/api/skills/${skill.id}/trusted-publishers`, { provider: 'github', repository, workflow: 'publish.yml' })).status).toBe(201);
    const confirmed = await exchange(await oidc.mint(ORIGIN, githubClaims(repository)));
    expect([confirmed.status, (await json(confirmed)).skills]).toEqual([200, [skill.slug]]);
  });

  it('stops counting once that member is demoted to a role that may not publish', async () => {
    const { org, login, skill, repository } = await miasPublisher();
    expect((await alice.session(`/api/orgs/${org}/members/${login}`, { method: 'PUT', body: { role: 'member' } })).status).toBe(200);
    await refusedWithoutTheSlug(repository, skill.slug);
  });

  it('leaves out of the exchange the skills whose publisher no longer counts, and keeps the others', async () => {
    const { org, mia, login, skill, repository } = await miasPublisher();
    const own = await withKey(stack, await mia.createKey(), '/api/publish', { body: skillBody() });
    const mine = await json<{ id: string; slug: string }>(own);
    expect((await post(mia, `/api/skills/${mine.id}/trusted-publishers`, { provider: 'github', repository, workflow: 'publish.yml' })).status).toBe(201);
    expect((await json(await exchange(await oidc.mint(ORIGIN, githubClaims(repository))))).skills).toEqual([skill.slug, mine.slug].sort());
    expect((await mia.session(`/api/orgs/${org}/members/${login}`, { method: 'DELETE' })).status).toBe(204);
    const answer = await exchange(await oidc.mint(ORIGIN, githubClaims(repository)));
    const text = await answer.text();
    expect([answer.status, JSON.parse(text).skills]).toEqual([200, [mine.slug]]);
    expect(text).not.toContain(skill.slug);
    const refused = await publishWith(JSON.parse(text).token, skill, '2.0.0');
    expect(refused.status).toBe(404);
  });

  it('is suspended by a transfer until the owning side of the new owner confirms it', async () => {
    const skill = await trustingSkill();
    const org = `tp-org-${++orgs}`;
    expect((await post(alice, '/api/orgs', { login: org, name: org })).status).toBe(201);
    expect((await withKey(stack, aliceKey, `/api/skills/${skill.id}/transfer`, { body: { to: org } })).status).toBe(200);
    await refusedWithoutTheSlug(skill.repository, skill.slug);
    expect((await json(await alice.session(`/api/skills/${skill.id}/trusted-publishers`))).publishers[0].active).toBe(false);
    expect(
      (await post(alice, `/api/skills/${skill.id}/trusted-publishers`, { provider: 'github', repository: skill.repository, workflow: 'publish.yml' })).status,
    ).toBe(201);
    expect((await exchange(await oidc.mint(ORIGIN, githubClaims(skill.repository)))).status).toBe(200);
  });
});

describe('the OIDC exchange', () => {
  it('gives a 15-minute publish token for the skills that trust the workflow; its versions record the verified claims', async () => {
    const skill = await trustingSkill();
    const claims = { ...githubClaims(skill.repository), sha: 'f00dfeedf00dfeedf00dfeedf00dfeedf00dfeed', run_id: '4242', run_attempt: '2' };
    const res = await exchange(await oidc.mint(ORIGIN, claims));
    expect(res.status).toBe(200);
    const answer = await json(res);
    expect(answer).toEqual({ token: expect.stringMatching(/^spt_/), expiresAt: expect.any(String), skills: [skill.slug] });
    const minutes = (Date.parse(answer.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(14);
    expect(minutes).toBeLessThanOrEqual(15);

    // The body cannot claim provenance of its own: the schema refuses what it does not know.
    expect((await publishWith(answer.token, skill, '1.1.0', { provenance: { repository: 'someone/else' } })).status).toBe(400);
    const published = await publishWith(answer.token, skill, '1.1.0');
    expect(published.status, await published.clone().text()).toBe(201);
    // The same token publishes again within its 15 minutes.
    expect((await publishWith(answer.token, skill, '1.2.0')).status).toBe(201);
    await stack.idle();
    const versions = (await json(await stack.request(`/api/registry/${skill.slug}/versions`))).versions;
    const provenance = {
      provider: 'github',
      repository: skill.repository,
      workflow: '.github/workflows/publish.yml',
      workflowRef: `${skill.repository}/.github/workflows/publish.yml@refs/heads/main`,
      ref: 'refs/heads/main',
      sha: 'f00dfeedf00dfeedf00dfeedf00dfeedf00dfeed',
      runId: '4242',
      runAttempt: '2',
      issuer: oidc.issuer,
    };
    expect(versions.map((v: any) => [v.version, v.provenance, v.publishedBy])).toEqual([
      ['1.2.0', provenance, `github:${skill.repository}`],
      ['1.1.0', provenance, `github:${skill.repository}`],
      ['1.0.0', undefined, 'tp-alice'],
    ]);
    const registry = await json(await stack.request(`/api/registry/${skill.slug}`));
    expect(registry.versions[0].provenance).toEqual(provenance);
  });

  it('narrows the publish token to the skills that trust the workflow, and to publishing', async () => {
    const skill = await trustingSkill();
    const other = await trustingSkill();
    const { token } = await json(await exchange(await oidc.mint(ORIGIN, githubClaims(skill.repository))));
    const elsewhere = await publishWith(token, other, '1.1.0');
    expect([elsewhere.status, (await json(elsewhere)).error.code]).toEqual([403, 'insufficient_scope']);
    const forged = await publishWith(`${token.slice(0, -2)}xx`, skill, '1.1.0');
    expect(forged.status).toBe(401);
  });

  it('is a valid credential everywhere a key is taken: what it may not do is 403 insufficient_scope (or forbidden), never 401', async () => {
    const skill = await trustingSkill();
    const { token } = await json(await exchange(await oidc.mint(ORIGIN, githubClaims(skill.repository))));
    const attempts: [string, string, unknown, string][] = [
      ['POST', `/api/skills/${skill.id}/versions/1.0.0/yank`, {}, 'insufficient_scope'],
      ['DELETE', `/api/skills/${skill.id}/versions/1.0.0/yank`, undefined, 'insufficient_scope'],
      ['POST', `/api/skills/${skill.id}/deprecate`, { message: 'gone' }, 'insufficient_scope'],
      ['PATCH', `/api/skills/${skill.id}`, { visibility: 'public' }, 'insufficient_scope'],
      ['POST', `/api/skills/${skill.id}/transfer`, { to: 'someorg' }, 'insufficient_scope'],
      ['POST', `/api/skills/${skill.id}/trusted-publishers`, { provider: 'github', repository: 'evil/x', workflow: 'p.yml' }, 'insufficient_scope'],
      ['GET', `/api/skills/${skill.id}/trusted-publishers`, undefined, 'insufficient_scope'],
      ['GET', `/api/skills/${skill.id}/download-tokens`, undefined, 'insufficient_scope'],
      ['POST', `/api/skills/${skill.id}/grants`, { login: 'tp-alice' }, 'insufficient_scope'],
      ['GET', `/api/skills/${skill.id}/sales`, undefined, 'insufficient_scope'],
      ['POST', '/api/publish', skillBody(), 'insufficient_scope'],
      ['GET', '/api/appeals', undefined, 'insufficient_scope'],
      ['POST', '/api/appeals', { message: 'please', skillId: skill.id, version: { version: '9.0.0', files: [skillFile(skill.slug, '# x')] } }, 'forbidden'],
    ];
    for (const [method, path, body, code] of attempts) {
      const res = await stack.request(path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect([method, path, res.status, (await json(res)).error?.code]).toEqual([method, path, 403, code]);
    }
    // It may say who it is: the repository it was exchanged for.
    const me = await stack.request('/api/me', { headers: { authorization: `Bearer ${token}` } });
    expect([me.status, (await json(me)).user?.login]).toEqual([200, `github:${skill.repository}`]);
    // Nothing was changed by any of them.
    const versions = (await json(await stack.request(`/api/me/registry/${skill.slug}/versions`, { headers: { authorization: `Bearer ${aliceKey}` } })))
      .versions;
    expect(versions.map((v: { version: string; yanked?: boolean }) => [v.version, v.yanked ?? false])).toEqual([['1.0.0', false]]);
  });

  it('refuses a publish token once its 15 minutes are over', async () => {
    const skill = await trustingSkill();
    const { token } = await json(await exchange(await oidc.mint(ORIGIN, githubClaims(skill.repository))));
    stack.setNow(new Date(Date.now() + 15 * 60_000 + 1000));
    try {
      const res = await publishWith(token, skill, '1.1.0');
      expect([res.status, (await json(res)).error.code]).toEqual([401, 'expired_key']);
    } finally {
      stack.setNow(undefined);
    }
  });

  describe('refuses a token with any claim wrong, naming the claim, and issues nothing', () => {
    const now = () => Math.floor(Date.now() / 1000);
    const cases: [string, (repository: string) => Promise<string>, string][] = [
      ['another issuer', (r) => oidc.mint(ORIGIN, { ...githubClaims(r), iss: 'https://token.actions.githubusercontent.com' }), 'iss'],
      ['another audience', (r) => oidc.mint('https://elsewhere.example', githubClaims(r)), 'aud'],
      ['expired beyond the skew', (r) => oidc.mint(ORIGIN, { ...githubClaims(r), iat: now() - 600, nbf: now() - 600, exp: now() - 61 }), 'exp'],
      ['not yet valid beyond the skew', (r) => oidc.mint(ORIGIN, { ...githubClaims(r), nbf: now() + 120 }), 'nbf'],
      ['issued in the future', (r) => oidc.mint(ORIGIN, { ...githubClaims(r), iat: now() + 120 }), 'iat'],
      ['no jti', (r) => oidc.mint(ORIGIN, { ...githubClaims(r), jti: undefined }), 'jti'],
      ['a repository nothing trusts', () => oidc.mint(ORIGIN, githubClaims('octo/untrusted')), 'repository'],
      ['another workflow of the repository', (r) => oidc.mint(ORIGIN, githubClaims(r, 'release.yml')), 'job_workflow_ref'],
      [
        "a workflow of another repository calling this one's name",
        (r) => oidc.mint(ORIGIN, { ...githubClaims(r), job_workflow_ref: `evil/fork/.github/workflows/publish.yml@refs/heads/main` }),
        'job_workflow_ref',
      ],
      ['signed by a key the issuer does not publish', (r) => oidc.mint(ORIGIN, githubClaims(r), { key: 'foreign' }), 'kid'],
      [
        'a foreign key under the issuer key id',
        async (r) => {
          const genuine = await oidc.mint(ORIGIN, githubClaims(r));
          const forged = await oidc.mint(ORIGIN, githubClaims(r), {
            key: 'foreign',
            header: { kid: JSON.parse(Buffer.from(genuine.split('.')[0]!, 'base64url').toString()).kid },
          });
          return forged;
        },
        'signature',
      ],
      [
        'alg: none',
        async (r) => {
          const [, payload] = (await oidc.mint(ORIGIN, githubClaims(r))).split('.');
          return `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
        },
        'alg',
      ],
      [
        'its claims changed after signing',
        async (r) => {
          const [header, payload, signature] = (await oidc.mint(ORIGIN, githubClaims(r))).split('.');
          const claims = { ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sha: '0'.repeat(40) };
          return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
        },
        'signature',
      ],
      ['not a JWT at all', async () => 'not.a.jwt', 'token'],
    ];

    it.each(cases)('%s', async (_, mint, claim) => {
      const skill = await trustingSkill();
      expect(await refusedFor(await mint(skill.repository))).toBe(claim);
    });

    it('an environment other than the one the skill requires', async () => {
      const skill = await trustingSkill('production');
      expect(await refusedFor(await oidc.mint(ORIGIN, githubClaims(skill.repository)))).toBe('environment');
      expect(await refusedFor(await oidc.mint(ORIGIN, { ...githubClaims(skill.repository), environment: 'staging' }))).toBe('environment');
      const ok = await exchange(await oidc.mint(ORIGIN, { ...githubClaims(skill.repository), environment: 'production' }));
      expect(ok.status).toBe(200);
    });

    it('a token exchanged before (its jti)', async () => {
      const skill = await trustingSkill();
      const token = await oidc.mint(ORIGIN, githubClaims(skill.repository));
      expect((await exchange(token)).status).toBe(200);
      expect(await refusedFor(token)).toBe('jti');
    });

    it('accepts 60 s of clock skew either way', async () => {
      const skill = await trustingSkill();
      const skewed = await oidc.mint(ORIGIN, { ...githubClaims(skill.repository), iat: now() + 50, nbf: now() + 50, exp: now() + 400 });
      expect((await exchange(skewed)).status).toBe(200);
      const late = await oidc.mint(ORIGIN, { ...githubClaims(skill.repository), iat: now() - 400, nbf: now() - 400, exp: now() - 50 });
      expect((await exchange(late)).status).toBe(200);
    });
  });

  it('follows the issuer when it rotates its key: a token signed with the new key verifies', async () => {
    const skill = await trustingSkill();
    expect((await exchange(await oidc.mint(ORIGIN, githubClaims(skill.repository)))).status).toBe(200);
    await oidc.rotate();
    expect((await exchange(await oidc.mint(ORIGIN, githubClaims(skill.repository)))).status).toBe(200);
  });
});

describe("the OIDC exchange's audience", () => {
  /** The claim a token for `audience` is refused on, sent to `url` (whose host is the request's Host). */
  async function refusedClaim(on: TestStack, audience: string, url: string): Promise<string> {
    const res = await on.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: await oidc.mint(audience, githubClaims('octo/nothing-trusts-it')) }),
    });
    const body = await json(res);
    expect([res.status, body.error.code], JSON.stringify(body)).toEqual([401, 'invalid_oidc_token']);
    return body.error.details.claim;
  }

  it('is SITE_ORIGIN, whatever Host the request names', async () => {
    // Past the audience, the token is refused for its repository, which nothing trusts here.
    expect(await refusedClaim(stack, ORIGIN, 'http://attacker.example/api/oidc/exchange')).toBe('repository');
    expect(await refusedClaim(stack, 'http://attacker.example', 'http://attacker.example/api/oidc/exchange')).toBe('aud');
  });

  it('is, without SITE_ORIGIN, the origin the local server listens on, and none at all before it listens: never the Host', async () => {
    const local = await createTestStack({}, { SKILLPRESS_OIDC_ISSUER: oidc.issuer, SKILLPRESS_OIDC_JWKS_COOLDOWN_MS: '0' });
    try {
      expect(await refusedClaim(local, 'http://localhost', 'http://localhost/api/oidc/exchange')).toBe('aud');
      expect(await refusedClaim(local, 'http://attacker.example', 'http://attacker.example/api/oidc/exchange')).toBe('aud');
      local.runtime.listening('http://127.0.0.1:8787');
      expect(await refusedClaim(local, 'http://127.0.0.1:8787', 'http://attacker.example/api/oidc/exchange')).toBe('repository');
      expect(await refusedClaim(local, 'http://attacker.example', 'http://attacker.example/api/oidc/exchange')).toBe('aud');
    } finally {
      await local.runtime.close();
    }
  });
});
