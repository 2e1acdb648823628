import { createHash, createHmac } from 'node:crypto';
import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '#functions/platform/config';
import { createDeps } from '#functions/platform/composition';
import { allRoutes } from '#functions/http/all-routes';
import { createApp } from '#functions/http/app';
import { finishShardedRebuild, rebuildShardTask } from '#functions/rebuild/fan-out';
import { fullRebuild } from '#functions/rebuild/full-rebuild';
import { recordObservation } from '#functions/services/behaviour';
import { flushPendingSiteBuild, triggerSiteBuild } from '#functions/services/site-build';
import { noEffects } from '#core/effects/effect';
import { formatCdnLogRecord } from '#core/cdn-log';
import { countCdnLog } from '#functions/services/install-log';
import { publishInstallCounts } from '#functions/services/public-installs';
import { DownloadCounter } from '#functions/store/downloads';
import { indexPopularSkill } from '#functions/store/lookalikes';
import { allows } from '../../infra/access.ts';
import { type LambdaSpec, lambdas } from '../../infra/lambdas.ts';
import { type AwsCallRecorder, recordAwsCalls } from '../support/aws-calls.ts';
import { type FakeGitHub, fakeGitHubEnv, startFakeGitHub } from '#scripts/local/fake-github';
import { slugify } from '#core/slug';
import { type FakeStripe, fakeStripeEnv, startFakeStripe } from '../support/fake-stripe.ts';
import { GitRepo } from '../support/git-repo.ts';
import { sendWebhook } from '../support/purchase.ts';
import { MALICIOUS_SKILL_MD } from '../support/scan-samples.ts';
import { Client, createTestStack, renamedSkillMd, skillFile, type TestStack, withKey } from '../support/stack.ts';

/** `GET /api/skills/{id}/versions` → a matcher for `GET /api/skills/abc/versions` (`{path+}`: the rest of the path). */
function routeMatcher(route: string): (method: string, path: string) => boolean {
  const [method, template] = route.split(' ') as [string, string];
  const pattern = new RegExp(
    `^${template
      .replace(/[.]/g, '\\.')
      .replace(/\{[^}]+\+\}/g, '.+')
      .replace(/\{[^}]+\}/g, '[^/]+')}$`,
  );
  return (m, path) => m === method && pattern.test(path);
}

/** The Lambda API Gateway sends a request to: the one whose route matches, else the catch-all. */
function lambdaFor(method: string, path: string): LambdaSpec {
  const owner = lambdas.find((l) => l.routes?.some((r) => routeMatcher(r)(method, path)));
  return owner ?? lambdas.find((l) => l.catchAll)!;
}

describe('the Lambda manifest', () => {
  it('has one entry file per Lambda and unique names', () => {
    expect(new Set(lambdas.map((l) => l.name)).size).toBe(lambdas.length);
    for (const l of lambdas) expect(existsSync(`functions/handlers/${l.name}.ts`), l.name).toBe(true);
  });

  it('maps every route the HTTP app serves to exactly one Lambda', () => {
    const app = createApp(createDeps(configFromEnv({})), allRoutes);
    const served = app.routes
      .filter((r) => r.method !== 'ALL')
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)\{\.\+\}/g, '{$1+}').replace(/:(\w+)/g, '{$1}')}`);
    expect(served.length).toBeGreaterThan(10);
    for (const route of served) {
      const owners = lambdas.filter((l) => l.routes?.includes(route as never));
      expect(
        owners.map((l) => l.name),
        route,
      ).toHaveLength(1);
    }
    // And nothing is mapped that the app does not serve.
    for (const l of lambdas) for (const route of l.routes ?? []) expect(served, `${l.name}: ${route}`).toContain(route);
  });

  it('has exactly one catch-all for unknown paths, and every Lambda is reachable', () => {
    expect(lambdas.filter((l) => l.catchAll)).toHaveLength(1);
    for (const l of lambdas) expect(l.routes?.length || l.stream || l.cdnLog || l.schedules?.length || l.fullRebuild || l.observer, l.name).toBeTruthy();
  });
});

describe('least privilege is enough', () => {
  let stack: TestStack;
  let recorder: AwsCallRecorder;
  let github: FakeGitHub;
  let stripe: FakeStripe;
  // Which Lambda a call belongs to follows the async context: requests run as the Lambda that
  // serves their route, and the in-process rebuild (started by writes, as the stream would) as
  // the rebuild Lambda, even when it runs while a request is still in flight.
  const owner = new AsyncLocalStorage<string>();

  beforeAll(async () => {
    github = await startFakeGitHub();
    stripe = await startFakeStripe();
    stack = await createTestStack({}, { ...fakeGitHubEnv(github), ...fakeStripeEnv(stripe), SKILLPRESS_ADMINS: 'root' });
    recorder = recordAwsCalls(stack.deps, () => owner.getStore());
    // The rebuild starts (and its retries follow) from the write's call that names the changed skills.
    const changed = stack.deps.changed;
    stack.deps.changed = (ids) => owner.run('rebuild', () => changed(ids));
  });
  afterAll(async () => {
    await github.close();
    await stripe.close();
  });

  /** A request through the app, as the Lambda that API Gateway would send it to. */
  async function request(method: string, path: string, send: () => Promise<Response>): Promise<Response> {
    const res = await owner.run(lambdaFor(method, path).name, send);
    expect(res.status, `${method} ${path}`).toBeLessThan(500);
    return res;
  }

  // Every route of every Lambda, a hundred installs and three rebuilds: far more than one request's time on a busy machine.
  it('covers what each Lambda does on its routes, stream and schedules', async () => {
    let alice!: Client;
    let bob!: Client;
    let root!: Client;
    await request('POST', '/api/auth/dev-login', async () => {
      alice = await Client.signIn(stack, 'alice');
      bob = await Client.signIn(stack, 'bob');
      root = await Client.signIn(stack, 'root');
      return new Response(null, { status: 200 });
    });
    await request('GET', '/api/me', () => alice.session('/api/me'));
    const created = await request('POST', '/api/api-keys', () => alice.session('/api/api-keys', { method: 'POST', body: { name: 'ci' } }));
    const { key, id: keyId } = (await created.json()) as { key: string; id: string };
    await request('GET', '/api/api-keys', () => alice.session('/api/api-keys'));

    const body = (name: string, paid = false) => ({
      name,
      description: 'd',
      category: 'testing',
      paid,
      files: [skillFile(slugify(name), `# ${name}`)],
    });
    const free = (await (await request('POST', '/api/publish', () => withKey(stack, key, '/api/publish', { body: body('Access Free') }))).json()) as {
      id: string;
    };
    const paid = (await (await request('POST', '/api/publish', () => withKey(stack, key, '/api/publish', { body: body('Access Paid', true) }))).json()) as {
      id: string;
    };
    // The same slug again: rejected after reading, writing nothing it may not.
    await request('POST', '/api/publish', () => withKey(stack, key, '/api/publish', { body: body('Access Free') }));
    const versions = `/api/skills/${free.id}/versions`;
    await request('POST', versions, () => withKey(stack, key, versions, { body: { version: '1.1.0', files: [skillFile('access-free', '# 1.1')] } }));
    await request('POST', versions, () => alice.session(versions, { method: 'POST', body: { version: '1.2.0' } }));
    await request('POST', versions, () => alice.session(versions, { method: 'POST', body: { version: '1.2.0' } }));

    const tokens = `/api/skills/${paid.id}/download-tokens`;
    const token = (await (await request('POST', tokens, () => withKey(stack, key, tokens, { body: { maxUses: 5 } }))).json()) as { id: string; token: string };
    await request('GET', tokens, () => alice.session(tokens));
    const grants = `/api/skills/${paid.id}/grants`;
    await request('POST', grants, () => alice.session(grants, { method: 'POST', body: { login: 'bob' } }));
    await request('GET', grants, () => withKey(stack, key, grants, { method: 'GET' }));
    // A hundred installs from as many clients make the skill popular enough to join the lookalike index.
    for (let i = 0; i < 100; i++) {
      await request('GET', `/api/deliver/${free.id}`, () => stack.requestFrom(`127.7.0.${i + 1}`, `/api/deliver/${free.id}?source=cli`));
    }
    await owner.run('deliver', () => stack.deps.downloads.flush());
    const yank = `${versions}/1.1.0/yank`;
    await request('POST', yank, () => withKey(stack, key, yank, { body: { reason: 'broken' } }));
    await request('DELETE', yank, () => alice.session(yank, { method: 'DELETE' }));
    const deprecate = `/api/skills/${free.id}/deprecate`;
    await request('POST', deprecate, () => alice.session(deprecate, { method: 'POST', body: { message: 'Use another' } }));
    await request('DELETE', deprecate, () => withKey(stack, key, deprecate, { method: 'DELETE' }));
    // A new skill's imitation check reads the index.
    await request('POST', '/api/publish', () => withKey(stack, key, '/api/publish', { body: body('Access Fr3e') }));
    await request('GET', `/api/deliver/${paid.id}`, () => stack.request(`/api/deliver/${paid.id}?token=${token.token}`));
    await request('GET', `/api/deliver/${paid.id}`, () => bob.session(`/api/deliver/${paid.id}?source=web`));
    await request('GET', `/api/deliver/${paid.id}`, () => stack.request(`/api/deliver/${paid.id}`));
    await request('GET', `/api/analytics/${free.id}`, () => alice.session(`/api/analytics/${free.id}`));
    const reports = `/api/skills/${free.id}/reports`;
    await request('POST', reports, () => bob.session(reports, { method: 'POST', body: { reason: 'spam' } }));
    await request('GET', reports, () => alice.session(reports));
    await request('GET', '/api/admin/reports', () => root.session('/api/admin/reports'));
    const quarantine = `/api/admin/skills/${free.id}/quarantine`;
    await request('POST', quarantine, () => root.session(quarantine, { method: 'POST', body: { reason: 'spam' } }));
    await request('DELETE', quarantine, () => root.session(quarantine, { method: 'DELETE' }));

    // Appeals: two refused skills sent again; one approved (published as the publish Lambda would), one declined.
    const refused = (name: string) => ({ ...body(name), files: [{ filename: 'SKILL.md', content: renamedSkillMd(MALICIOUS_SKILL_MD, slugify(name)) }] });
    const appealIds: string[] = [];
    for (const name of ['Appealed One', 'Appealed Two']) {
      const filed = await request('POST', '/api/appeals', () =>
        withKey(stack, key, '/api/appeals', { body: { message: 'a fixture', publish: refused(name) } }),
      );
      appealIds.push(((await filed.json()) as { id: string }).id);
    }
    await request('GET', '/api/appeals', () => alice.session('/api/appeals'));
    await request('GET', '/api/admin/appeals', () => root.session('/api/admin/appeals'));
    await request('GET', `/api/admin/appeals/${appealIds[0]}`, () => root.session(`/api/admin/appeals/${appealIds[0]}`));
    const approval = `/api/admin/appeals/${appealIds[0]}/approve`;
    expect((await request('POST', approval, () => root.session(approval, { method: 'POST' }))).status).toBe(200);
    const declining = `/api/admin/appeals/${appealIds[1]}/decline`;
    await request('POST', declining, () => root.session(declining, { method: 'POST', body: { reason: 'no' } }));
    await request('DELETE', `${grants}/bob`, () => alice.session(`${grants}/bob`, { method: 'DELETE' }));

    const skill = `/api/skills/${paid.id}`;
    await request('PATCH', skill, () => withKey(stack, key, skill, { method: 'PATCH', body: { price: { amount: 999, currency: 'EUR' } } }));
    const checkout = await request('POST', `${skill}/checkout`, () => bob.session(`${skill}/checkout`, { method: 'POST' }));
    const { sessionId } = (await checkout.json()) as { sessionId: string };
    await request('POST', '/api/stripe/webhook', () => sendWebhook(stack, stripe, stripe.pay(sessionId)));
    await request('POST', tokens, () => bob.session(tokens, { method: 'POST', body: {} }));
    await request('GET', '/api/me/purchases', () => bob.session('/api/me/purchases'));
    await request('GET', `${skill}/sales`, () => withKey(stack, key, `${skill}/sales`, { method: 'GET' }));
    await request('POST', '/api/stripe/webhook', () => sendWebhook(stack, stripe, stripe.refund(sessionId)));
    await request('DELETE', `${tokens}/${token.id}`, () => alice.session(`${tokens}/${token.id}`, { method: 'DELETE' }));

    const started = await request('GET', '/api/auth/github', () => stack.request('/api/auth/github'));
    const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
    const code = github.issueCode({ id: 31337, login: 'access-check' });
    await request('GET', '/api/auth/github/callback', () =>
      stack.request(`/api/auth/github/callback?code=${code}&state=${state}`, { headers: { cookie: `skillpress_oauth_state=${state}` } }),
    );
    await request('GET', '/api/nowhere', () => stack.request('/api/nowhere'));
    await request('GET', '/api/me', () => withKey(stack, key, '/api/me', { method: 'GET' }));

    // An organisation: created, an invitation accepted, members listed and changed, its log read, then deleted.
    const org = '/api/orgs/access-org';
    await request('POST', '/api/orgs', () => alice.session('/api/orgs', { method: 'POST', body: { login: 'access-org', name: 'Access' } }));
    await request('GET', '/api/orgs/{org}', () => stack.request(org));
    await request('POST', `${org}/invitations`, () => alice.session(`${org}/invitations`, { method: 'POST', body: { login: 'bob', role: 'member' } }));
    await request('GET', `${org}/invitations`, () => alice.session(`${org}/invitations`));
    await request('GET', '/api/me/invitations', () => bob.session('/api/me/invitations'));
    await request('POST', `${org}/invitations/bob/accept`, () => bob.session(`${org}/invitations/bob/accept`, { method: 'POST' }));
    await request('POST', `${org}/invitations`, () => alice.session(`${org}/invitations`, { method: 'POST', body: { login: 'root', role: 'member' } }));
    await request('POST', `${org}/invitations/root/decline`, () => root.session(`${org}/invitations/root/decline`, { method: 'POST' }));
    await request('POST', `${org}/invitations`, () => alice.session(`${org}/invitations`, { method: 'POST', body: { login: 'root', role: 'member' } }));
    await request('DELETE', `${org}/invitations/root`, () => alice.session(`${org}/invitations/root`, { method: 'DELETE' }));
    await request('GET', `${org}/members`, () => withKey(stack, key, `${org}/members`, { method: 'GET' }));
    await request('PUT', `${org}/members/bob`, () => alice.session(`${org}/members/bob`, { method: 'PUT', body: { role: 'maintainer' } }));
    await request('GET', '/api/me/orgs', () => bob.session('/api/me/orgs'));
    await request('GET', `${org}/audit`, () => alice.session(`${org}/audit`));
    await request('DELETE', `${org}/members/bob`, () => bob.session(`${org}/members/bob`, { method: 'DELETE' }));
    await request('DELETE', org, () => alice.session(org, { method: 'DELETE' }));

    // An organisation's skills: a private one published into it, read by a member with a narrowed
    // read key, made public; a user's skill transferred in.
    await request('POST', '/api/orgs', () => alice.session('/api/orgs', { method: 'POST', body: { login: 'access-team', name: 'Team' } }));
    const teamKeyRes = await request('POST', '/api/api-keys', () =>
      alice.session('/api/api-keys', { method: 'POST', body: { name: 'team', org: 'access-team', scopes: ['publish', 'manage', 'read'] } }),
    );
    const { key: teamKey } = (await teamKeyRes.json()) as { key: string };
    const hidden = (await (
      await request('POST', '/api/publish', () =>
        withKey(stack, teamKey, '/api/publish', { body: { ...body('Access Hidden'), owner: 'access-team', visibility: 'private' } }),
      )
    ).json()) as { id: string };
    const hiddenVersions = `/api/skills/${hidden.id}/versions`;
    await request('POST', hiddenVersions, () =>
      withKey(stack, teamKey, hiddenVersions, { body: { version: '1.1.0', files: [skillFile('access-hidden', '# 1.1')] } }),
    );
    await request('GET', '/api/me/registry/{slug}', () => withKey(stack, teamKey, '/api/me/registry/access-hidden', { method: 'GET' }));
    await request('GET', '/api/me/registry/{slug}/versions', () => withKey(stack, teamKey, '/api/me/registry/access-hidden/versions', { method: 'GET' }));
    await request('GET', `/api/deliver/${hidden.id}`, () => withKey(stack, teamKey, `/api/deliver/${hidden.id}?source=cli`, { method: 'GET' }));
    await request('PATCH', `/api/skills/${hidden.id}`, () => alice.session(`/api/skills/${hidden.id}`, { method: 'PATCH', body: { visibility: 'public' } }));
    const transfer = `/api/skills/${free.id}/transfer`;
    await request('POST', transfer, () => alice.session(transfer, { method: 'POST', body: { to: 'access-team' } }));

    // Our search, then ClawHub clients: discovery, whoami, search, lists, a skill, resolve, a download, a publish, and a refusal.
    await stack.idle();
    for (const path of [
      '/.well-known/clawhub.json',
      '/api/search?q=access',
      '/.well-known/clawdhub.json',
      '/api/v1/search?q=access',
      '/api/v1/skills',
      '/api/v1/skills?sort=installs',
      '/api/v1/skills/access-free',
    ]) {
      await request('GET', path.split('?')[0]!, () => stack.request(path));
    }
    // The pages CloudFront asks for in place of site pages the build did not make.
    for (const path of ['/api/pages/skills/access-free/index.html', '/api/pages/authors/alice/index.html', '/api/pages/no/such/page/index.html'])
      await request('GET', path, () => stack.request(path));
    await request('GET', '/api/v1/whoami', () => withKey(stack, key, '/api/v1/whoami', { method: 'GET' }));
    await request('GET', '/api/v1/resolve', () => stack.request(`/api/v1/resolve?slug=access-free&hash=${'0'.repeat(64)}`));
    await request('GET', '/api/v1/download', () => stack.request('/api/v1/download?slug=access-free'));
    const clawhubForm = new FormData();
    clawhubForm.set('payload', JSON.stringify({ slug: 'access-claw', displayName: 'Access Claw', version: '0.1.0', changelog: '' }));
    clawhubForm.append('files', new Blob(['---\nname: access-claw\ndescription: d\n---\n# Claw\n']), 'SKILL.md');
    await request('POST', '/api/v1/skills', () =>
      stack.request('/api/v1/skills', { method: 'POST', body: clawhubForm, headers: { authorization: `Bearer ${key}` } }),
    );
    // clawhub 0.23: versions, one version, a file, and a publish of files sent ahead.
    for (const path of ['/api/v1/skills/access-free/versions', '/api/v1/skills/access-free/versions/1.0.0', '/api/v1/skills/access-free/file?path=SKILL.md']) {
      await request('GET', path.split('?')[0]!, () => stack.request(path));
    }
    const sent = new TextEncoder().encode('---\nname: access-hub\ndescription: d\n---\n# Hub\n');
    const sha256 = createHash('sha256').update(sent).digest('hex');
    const announced = await request('POST', '/api/v1/skills/-/upload-url', () =>
      withKey(stack, key, '/api/v1/skills/-/upload-url', { body: { path: 'SKILL.md', size: sent.byteLength, sha256 } }),
    );
    const { uploadUrl, uploadTicket } = await announced.json();
    const uploadPath = new URL(uploadUrl).pathname + new URL(uploadUrl).search;
    await request('POST', '/api/v1/skills/-/upload', () =>
      stack.request(uploadPath, { method: 'POST', body: sent, headers: { authorization: `Bearer ${key}`, 'content-type': 'text/markdown' } }),
    );
    await request('POST', '/api/v1/skills', () =>
      withKey(stack, key, '/api/v1/skills', {
        body: {
          slug: 'access-hub',
          displayName: 'Access Hub',
          version: '1.0.0',
          files: [{ path: 'SKILL.md', size: sent.byteLength, sha256, storageId: sha256, uploadTicket }],
        },
      }),
    );
    await request('POST', '/api/v1/stars/access-free', () => stack.request('/api/v1/stars/access-free', { method: 'POST' }));
    // A GitHub import: signed in with GitHub, a repository of one skill imported, synced after a
    // push, through its webhook (a forged delivery first), and listed.
    const octo = { id: 4_321_987, login: 'octo-access' };
    const octoClient = await owner.run('auth', () => Client.signInWithGitHub(stack, () => github.issueCode(octo)));
    const repo = new GitRepo();
    github.addRepo('octo-access/skills', repo.dir, { ...octo, type: 'User' });
    repo.commit({ 'access-imported/SKILL.md': renamedSkillMd('---\nname: x\ndescription: Imported.\n---\n# Imported\n', 'access-imported') });
    const imported = (await (
      await request('POST', '/api/imports', () => octoClient.session('/api/imports', { method: 'POST', body: { repo: 'octo-access/skills' } }))
    ).json()) as { id: string; webhookSecret: string };
    repo.commit({ 'access-imported/notes.md': '# Notes\n' });
    const hook = `/api/imports/${imported.id}/webhook`;
    const push = JSON.stringify({ ref: 'refs/heads/main' });
    const deliver = (signature: string) =>
      stack.request(hook, { method: 'POST', headers: { 'x-github-event': 'push', 'x-hub-signature-256': signature }, body: push });
    await request('POST', hook, () => deliver(`sha256=${'0'.repeat(64)}`));
    await request('POST', hook, () => deliver(`sha256=${createHmac('sha256', imported.webhookSecret).update(push).digest('hex')}`));
    await request('POST', `/api/imports/${imported.id}/sync`, () => octoClient.session(`/api/imports/${imported.id}/sync`, { method: 'POST' }));
    await request('GET', '/api/imports', () => octoClient.session('/api/imports'));
    repo.remove();

    await request('DELETE', `/api/api-keys/${keyId}`, () => alice.session(`/api/api-keys/${keyId}`, { method: 'DELETE' }));
    await request('POST', '/api/auth/logout', () => alice.session('/api/auth/logout', { method: 'POST' }));

    await stack.idle();
    await owner.run('rebuild', () => triggerSiteBuild(stack.deps));
    await owner.run('site-build', () => flushPendingSiteBuild(stack.deps));
    await owner.run('full-rebuild', () => fullRebuild(stack.deps));
    // The full rebuild fanned out, as its state machine runs it: two shards, then the finish.
    for (const shard of [0, 1]) await owner.run('rebuild-shard', () => rebuildShardTask(stack.deps, { run: 'access-run', shard, shards: 2 }));
    await owner.run('full-rebuild', () => finishShardedRebuild(stack.deps, 'access-run', 2));
    // The observer state machine's last step, for a version no run is pending for: it reads, and its one write changes nothing.
    await owner.run('observation', () =>
      recordObservation(stack.deps, {
        slug: 'access-free',
        version: '1.0.0',
        observation: { effects: noEffects(), verdict: 'clean', evidence: [], budgetsHit: [], steps: [] },
      }),
    );
    // Discovery downloads from the CDN's log (a record of each kind, one of them read twice), and the scheduled public counts.
    await owner.run('install-log', async () => {
      const counter = new DownloadCounter(stack.deps.db, stack.deps.log, {
        lingerMs: 1000,
        concurrency: 2,
        milestone: { installs: 1, reached: (id) => indexPopularSkill(stack.deps.db, id) },
      });
      const line = formatCdnLogRecord({
        at: Date.now(),
        address: '127.7.1.1',
        status: 200,
        method: 'GET',
        path: '/.well-known/agent-skills/access-free/1.2.0.tar.gz',
        query: 'via=skill-index',
        userAgent: 'node',
        requestId: 'r1',
        headers: {},
      });
      countCdnLog(counter, [line, line, line.replace('access-free', 'no-such-skill')]);
      await counter.flush();
    });
    await owner.run('public-installs', () => publishInstallCounts(stack.deps));

    const calls = recorder.take();
    for (const { owner: name, call } of calls) {
      const lambda = lambdas.find((l) => l.name === name);
      expect(lambda, `a call outside any Lambda: ${JSON.stringify(call)}`).toBeDefined();
      expect(allows(lambda!, call), `${name} made ${JSON.stringify(call)}`).toBe(true);
    }
    expect([...new Set(calls.map((c) => c.owner))].sort()).toEqual(lambdas.map((l) => l.name).sort());
  }, 120_000);

  it('refuses what a Lambda is not granted', () => {
    const apiKeys = lambdas.find((l) => l.name === 'api-keys')!;
    expect(allows(apiKeys, { service: 'dynamodb', action: 'dynamodb:PutItem', partitionKeys: ['SKILL#x'] })).toBe(false);
    expect(allows(apiKeys, { service: 'dynamodb', action: 'dynamodb:UpdateItem', partitionKeys: ['APIKEY#x', 'SKILL#x'] })).toBe(false);
    expect(allows(apiKeys, { service: 'dynamodb', action: 'dynamodb:Scan', partitionKeys: [] })).toBe(false);
    expect(allows(apiKeys, { service: 's3', bucket: 'content', action: 's3:GetObject' })).toBe(false);
    const deliver = lambdas.find((l) => l.name === 'deliver')!;
    expect(allows(deliver, { service: 'dynamodb', action: 'dynamodb:PutItem', partitionKeys: ['SKILL#x'] })).toBe(false);
    expect(allows(deliver, { service: 'dynamodb', action: 'dynamodb:UpdateItem', partitionKeys: ['DL#x'] })).toBe(true);
    expect(allows(deliver, { service: 's3', bucket: 'content', action: 's3:PutObject' })).toBe(false);
    const publish = lambdas.find((l) => l.name === 'publish')!;
    expect(allows(publish, { service: 's3', bucket: 'static', action: 's3:PutObject' })).toBe(false);
    expect(allows(publish, { service: 'dynamodb', action: 'dynamodb:DeleteTable', partitionKeys: [] })).toBe(false);
  });
});
