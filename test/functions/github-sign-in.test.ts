import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#functions/platform/log';
import { type FakeGitHub, fakeGitHubEnv, type GitHubUser, startFakeGitHub } from '#scripts/local/fake-github';
import { createTestStack, json, ORIGIN, skillBody, skillFile, type TestStack } from '../support/stack.ts';

let github: FakeGitHub;
let stack: TestStack;
const logLines: string[] = [];

beforeAll(async () => {
  github = await startFakeGitHub();
  stack = await createTestStack({ log: createLogger('debug', (line) => logLines.push(line) > 0) }, fakeGitHubEnv(github));
});
afterAll(() => github.close());

/** Set-Cookie values by cookie name. */
function cookiesOf(res: Response): Map<string, string> {
  return new Map(res.headers.getSetCookie().map((c) => [c.slice(0, c.indexOf('=')), c]));
}

const cookieValue = (setCookie: string) => setCookie.slice(setCookie.indexOf('=') + 1, setCookie.indexOf(';'));

/** Step one in the browser: start sign-in, keep the state cookie and the state GitHub will echo. */
async function start(s: TestStack = stack): Promise<{ state: string; cookie: string; location: URL }> {
  const res = await s.request('/api/auth/github');
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get('location')!);
  const stateCookie = cookiesOf(res).get('skillpress_oauth_state')!;
  return { state: location.searchParams.get('state')!, cookie: `skillpress_oauth_state=${cookieValue(stateCookie)}`, location };
}

function callback(query: Record<string, string>, cookie?: string, s: TestStack = stack): Promise<Response> {
  return s.request(`/api/auth/github/callback?${new URLSearchParams(query)}`, { headers: cookie ? { cookie } : {} });
}

async function sessionCount(): Promise<number> {
  const { Items } = await stack.deps.db.doc.send(new ScanCommand({ TableName: stack.deps.db.table }));
  return (Items ?? []).filter((item) => String(item.pk).startsWith('SESSION#')).length;
}

const octocat: GitHubUser = { id: 583231, login: 'octocat', name: 'The Octocat', avatar_url: 'https://avatars.githubusercontent.com/u/583231' };

describe('GET /api/auth/github', () => {
  it('redirects to the GitHub authorize page with the client id, the callback URL and a state', async () => {
    const { location, state } = await start();
    expect(location.origin + location.pathname).toBe(`${github.baseUrl}/login/oauth/authorize`);
    expect(location.searchParams.get('client_id')).toBe(github.clientId);
    expect(location.searchParams.get('redirect_uri')).toBe('http://localhost/api/auth/github/callback');
    expect(location.searchParams.get('scope')).toBeNull();
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('sets the state in a short-lived HttpOnly, SameSite=Lax cookie scoped to the sign-in paths', async () => {
    const res = await stack.request('/api/auth/github');
    const cookie = cookiesOf(res).get('skillpress_oauth_state')!;
    expect(cookieValue(cookie)).toBe(new URL(res.headers.get('location')!).searchParams.get('state'));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/api\/auth\/github(;|$)/);
    expect(cookie).toMatch(/Max-Age=600/);
    expect(cookie).not.toMatch(/Secure/);
  });

  it('makes a fresh state for every sign-in', async () => {
    const states = new Set(await Promise.all([1, 2, 3].map(async () => (await start()).state)));
    expect(states.size).toBe(3);
  });

  it('marks the state cookie Secure and uses SITE_ORIGIN for the callback over https', async () => {
    const prod = await createTestStack({}, { ...fakeGitHubEnv(github), SITE_ORIGIN: 'https://skillpress.example' });
    const res = await prod.request('https://skillpress.example/api/auth/github');
    expect(cookiesOf(res).get('skillpress_oauth_state')).toMatch(/Secure/);
    expect(new URL(res.headers.get('location')!).searchParams.get('redirect_uri')).toBe('https://skillpress.example/api/auth/github/callback');
  });
});

describe('GET /api/auth/github/callback', () => {
  it('exchanges the code once, creates the user and a session, and redirects to /dashboard/', async () => {
    const { state, cookie } = await start();
    const code = github.issueCode(octocat);
    const res = await callback({ code, state }, cookie);

    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/dashboard/');
    expect(github.exchanges.filter((e) => e.code === code)).toEqual([{ code, redirectUri: 'http://localhost/api/auth/github/callback' }]);
    const cookies = cookiesOf(res);
    expect(cookies.get('skillpress_oauth_state')).toMatch(/^skillpress_oauth_state=;.*Max-Age=0/);
    const session = cookies.get('skillpress_session')!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);

    const me = await stack.request('/api/me', { headers: { cookie: `skillpress_session=${cookieValue(session)}` } });
    expect(await json(me)).toEqual({ user: { id: 'gh:583231', login: 'octocat', name: 'The Octocat', avatarUrl: octocat.avatar_url }, admin: false });
  });

  it('does not exchange the code again when the callback is replayed after sign-in', async () => {
    const { state, cookie } = await start();
    const code = github.issueCode({ id: 7, login: 'replayer' });
    expect((await callback({ code, state }, cookie)).status).toBe(302);
    const sessions = await sessionCount();

    // The browser no longer has the state cookie: refused before GitHub is asked.
    const again = await callback({ code, state });
    expect(again.status).toBe(400);
    expect((await json(again)).error.code).toBe('invalid_request');
    // A replay that still carries the old cookie reaches GitHub, which refuses the spent code.
    const forged = await callback({ code, state }, cookie);
    expect(forged.status).toBe(400);
    expect(forged.headers.getSetCookie().some((c) => c.startsWith('skillpress_session='))).toBe(false);
    expect(await sessionCount()).toBe(sessions);
  });

  it.each([
    ['a state that does not match the cookie', (s: { state: string; cookie: string }) => ({ query: { state: 'x'.repeat(43) }, cookie: s.cookie })],
    ['no state cookie', (s: { state: string; cookie: string }) => ({ query: { state: s.state }, cookie: undefined })],
    ['no state parameter', (s: { state: string; cookie: string }) => ({ query: {}, cookie: s.cookie })],
    ['a state of another length', (s: { state: string; cookie: string }) => ({ query: { state: s.state.slice(1) }, cookie: s.cookie })],
  ])('answers %s with 400 invalid_request, without asking GitHub or creating a session, and spends the state', async (_, make) => {
    const started = await start();
    const code = github.issueCode({ id: 99, login: 'mallory' });
    const { query, cookie } = make(started);
    const sessions = await sessionCount();
    const res = await callback({ code, ...query }, cookie);
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe('invalid_request');
    expect(res.headers.getSetCookie().some((c) => c.startsWith('skillpress_session='))).toBe(false);
    expect(github.exchanges.some((e) => e.code === code)).toBe(false);
    expect(await sessionCount()).toBe(sessions);
    // The state is spent even by a failed attempt.
    expect(cookiesOf(res).get('skillpress_oauth_state')).toMatch(/Max-Age=0/);
  });

  it('answers a code GitHub refuses with 400 invalid_request and no session', async () => {
    const { state, cookie } = await start();
    const res = await callback({ code: 'not-a-code', state }, cookie);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toEqual({ code: 'invalid_request', message: expect.stringMatching(/GitHub did not accept/) });
    expect(res.headers.getSetCookie().some((c) => c.startsWith('skillpress_session='))).toBe(false);
  });

  it('answers a cancelled sign-in (no code) with 400 invalid_request', async () => {
    const { state, cookie } = await start();
    const res = await callback({ error: 'access_denied', state }, cookie);
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toMatch(/cancelled/);
  });

  it('keeps the user id across a GitHub rename and omits a missing name and avatar', async () => {
    for (const login of ['before-rename', 'after-rename']) {
      const { state, cookie } = await start();
      const res = await callback({ code: github.issueCode({ id: 4242, login, name: null, avatar_url: null }), state }, cookie);
      const session = cookieValue(cookiesOf(res).get('skillpress_session')!);
      const me = await stack.request('/api/me', { headers: { cookie: `skillpress_session=${session}` } });
      expect(await json(me)).toEqual({ user: { id: 'gh:4242', login }, admin: false });
    }
  });

  it('answers a GitHub outage with a bare 500 that leaks neither the secret nor the code, and logs no secret', async () => {
    const { state, cookie } = await start();
    const code = github.issueCode(octocat);
    github.failNext('/login/oauth/access_token', 502);
    const res = await callback({ code, state }, cookie);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: { code: 'internal', message: expect.any(String) } });
    for (const secret of [github.clientSecret, code]) {
      expect(text).not.toContain(secret);
      expect(logLines.join('\n')).not.toContain(secret);
    }
    expect(logLines.join('\n')).toMatch(/GitHubError/);
  });

  it('answers a user GitHub sends in an unusable shape with a 500, creating no session', async () => {
    const sessions = await sessionCount();
    github.overrideUser({ id: 'not-a-number', login: '../../etc' });
    try {
      const { state, cookie } = await start();
      const res = await callback({ code: github.issueCode(octocat), state }, cookie);
      expect(res.status).toBe(500);
    } finally {
      github.overrideUser(undefined);
    }
    expect(await sessionCount()).toBe(sessions);
  });
});

describe('a GitHub-compatible API named by SKILLPRESS_GITHUB_API alone (the fake GitHub of a local demo)', () => {
  it('signs in through its authorize page as the account signed in there, and reads that user from it', async () => {
    const owner: GitHubUser = { id: 90210, login: 'octo-demo' };
    const fake = await startFakeGitHub({ clientId: 'demo-client', clientSecret: 'demo-secret', signedIn: owner });
    try {
      const demo = await createTestStack({}, { SKILLPRESS_GITHUB_API: fake.baseUrl, GITHUB_CLIENT_ID: 'demo-client', GITHUB_CLIENT_SECRET: 'demo-secret' });
      const { state, cookie, location } = await start(demo);
      expect(location.origin).toBe(fake.baseUrl);
      // The browser follows the redirect; the fake approves at once and sends it back with a code.
      const approved = await fetch(location, { redirect: 'manual' });
      expect(approved.status).toBe(302);
      const back = new URL(approved.headers.get('location')!);
      expect(back.href).toMatch(/^http:\/\/localhost\/api\/auth\/github\/callback\?/);
      expect(back.searchParams.get('state')).toBe(state);
      const res = await callback({ code: back.searchParams.get('code')!, state }, cookie, demo);
      expect(res.status).toBe(302);
      const session = cookieValue(cookiesOf(res).get('skillpress_session')!);
      const me = await demo.request('/api/me', { headers: { cookie: `skillpress_session=${session}` } });
      expect((await json(me)).user).toEqual({ id: 'gh:90210', login: 'octo-demo' });
    } finally {
      await fake.close();
    }
  });

  it('answers an app it does not know with a 404, sending nobody back', async () => {
    const fake = await startFakeGitHub({ clientId: 'demo-client', signedIn: { id: 1, login: 'someone' } });
    try {
      const res = await fetch(`${fake.baseUrl}/login/oauth/authorize?client_id=other&redirect_uri=http://localhost/cb&state=s`, { redirect: 'manual' });
      expect(res.status).toBe(404);
    } finally {
      await fake.close();
    }
  });
});

describe('GitHub sign-in not configured', () => {
  it('answers both routes with 404 not_found', async () => {
    const plain = await createTestStack();
    for (const path of ['/api/auth/github', '/api/auth/github/callback?code=a&state=b']) {
      const res = await plain.request(path);
      expect(res.status, path).toBe(404);
      expect((await json(res)).error.code).toBe('not_found');
    }
  });
});

describe('an organisation holding a GitHub account’s login (the squat of issue 47)', () => {
  async function signIn(user: GitHubUser): Promise<Response> {
    const { state, cookie } = await start();
    return callback({ code: github.issueCode(user), state }, cookie);
  }
  const devSignIn = (login: string) =>
    stack.request('/api/auth/dev-login', { method: 'POST', headers: { 'content-type': 'application/json', origin: ORIGIN }, body: JSON.stringify({ login }) });

  it('is renamed when that GitHub account signs in: the account gets its login, the organisation and its skills keep their slugs under the new name', async () => {
    // Mallory signs in first and takes the login of a GitHub user who has not, with a skill under it.
    const mallory = cookiesOf(await devSignIn('mallory'))
      .get('skillpress_session')!
      .split(';')[0]!;
    const asMallory = (path: string, init: { method?: string; body?: unknown } = {}) =>
      stack.request(path, {
        method: init.method ?? 'GET',
        headers: { cookie: mallory, origin: ORIGIN, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
    expect((await asMallory('/api/orgs', { method: 'POST', body: { login: 'torvalds', name: 'Linus (official)' } })).status).toBe(201);
    const key = (await json(await asMallory('/api/api-keys', { method: 'POST', body: { name: 'ci', org: 'torvalds' } }))).key;
    const published = await stack.request('/api/publish', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(skillBody({ owner: 'torvalds' })),
    });
    expect(published.status, await published.clone().text()).toBe(201);
    const skill = await json<{ id: string; slug: string }>(published);

    const res = await signIn({ id: 1024025, login: 'Torvalds' });
    expect(res.status).toBe(302);
    const session = cookieValue(cookiesOf(res).get('skillpress_session')!);
    expect((await json(await stack.request('/api/me', { headers: { cookie: `skillpress_session=${session}` } }))).user).toMatchObject({
      id: 'gh:1024025',
      login: 'Torvalds',
    });
    expect((await stack.request('/api/orgs/torvalds')).status).toBe(404);
    const renamed = await json(await stack.request('/api/orgs/torvalds-org'));
    expect(renamed).toMatchObject({ login: 'torvalds-org', name: 'Linus (official)' });
    expect(renamed.skills.map((s: { slug: string; owner: unknown }) => [s.slug, s.owner])).toEqual([[skill.slug, { type: 'org', login: 'torvalds-org' }]]);
    expect((await json(await asMallory('/api/me/orgs'))).orgs).toEqual([{ login: 'torvalds-org', name: 'Linus (official)', role: 'owner' }]);
    // The slug still installs, its registry names the new owner; the organisation's key follows it.
    await stack.idle();
    expect((await json(await stack.request(`/api/registry/${skill.slug}`))).owner).toEqual({ type: 'org', login: 'torvalds-org' });
    const version = await stack.request(`/api/skills/${skill.id}/versions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ version: '1.1.0', files: [skillFile(skill.slug, '# 1.1')] }),
    });
    expect(version.status, await version.clone().text()).toBe(201);
    const log = (await json(await asMallory('/api/orgs/torvalds-org/audit'))).entries;
    expect(log.map((e: { action: string }) => e.action)).toEqual(['version.published', 'org.renamed', 'skill.published', 'key.created']);
    expect(log[1]).toMatchObject({ actor: 'Torvalds', details: { from: 'torvalds', to: 'torvalds-org' } });
    // Nobody takes the login from the account now.
    expect((await asMallory('/api/orgs', { method: 'POST', body: { login: 'TORVALDS', name: 'again' } })).status).toBe(409);
  });

  it('is not taken back by a dev sign-in, which proves no GitHub account', async () => {
    const owner = cookiesOf(await devSignIn('olga'))
      .get('skillpress_session')!
      .split(';')[0]!;
    const created = await stack.request('/api/orgs', {
      method: 'POST',
      headers: { cookie: owner, origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'olgas-team', name: 'Team' }),
    });
    expect(created.status).toBe(201);
    const res = await devSignIn('olgas-team');
    expect([res.status, (await json(res)).error.code]).toEqual([409, 'login_taken']);
  });
});
