import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../functions/config.ts';
import { createDeps } from '../../functions/deps.ts';
import { allRoutes } from '../../functions/http/all-routes.ts';
import { createApp } from '../../functions/http/app.ts';
import { flushPendingSiteBuild, triggerSiteBuild } from '../../functions/site-build-trigger.ts';
import { allows, type AwsCall } from '../../infra/access.ts';
import { type LambdaSpec, lambdas } from '../../infra/lambdas.ts';
import { type AwsCallRecorder, recordAwsCalls } from '../support/aws-calls.ts';
import { type FakeGitHub, fakeGitHubEnv, startFakeGitHub } from '../support/fake-github.ts';
import { Client, createTestStack, type TestStack, withKey } from '../support/stack.ts';

/** `GET /api/skills/{id}/versions` → a matcher for `GET /api/skills/abc/versions`. */
function routeMatcher(route: string): (method: string, path: string) => boolean {
  const [method, template] = route.split(' ') as [string, string];
  const pattern = new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
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
    for (const l of lambdas) expect(existsSync(`functions/${l.name}.ts`), l.name).toBe(true);
  });

  it('maps every route the HTTP app serves to exactly one Lambda', () => {
    const app = createApp(createDeps(configFromEnv({})), allRoutes);
    const served = app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(served.length).toBeGreaterThan(10);
    for (const route of served) {
      const owners = lambdas.filter((l) => l.routes?.includes(route as never));
      expect(owners.map((l) => l.name), route).toHaveLength(1);
    }
    // And nothing is mapped that the app does not serve.
    for (const l of lambdas) for (const route of l.routes ?? []) expect(served, `${l.name}: ${route}`).toContain(route);
  });

  it('has exactly one catch-all for unknown paths, and every Lambda is reachable', () => {
    expect(lambdas.filter((l) => l.catchAll)).toHaveLength(1);
    for (const l of lambdas) expect(l.routes?.length || l.stream || l.schedules?.length, l.name).toBeTruthy();
  });
});

describe('least privilege is enough', () => {
  let stack: TestStack;
  let recorder: AwsCallRecorder;
  let github: FakeGitHub;
  const exercised = new Set<string>();

  beforeAll(async () => {
    github = await startFakeGitHub();
    stack = await createTestStack({}, fakeGitHubEnv(github));
    recorder = recordAwsCalls(stack.deps);
  });
  afterAll(() => github.close());

  /** Checks the AWS calls made since the last check against what `lambda` is granted. */
  function expectAllowed(lambda: LambdaSpec, what: string): void {
    const calls: AwsCall[] = recorder.take();
    exercised.add(lambda.name);
    for (const call of calls) expect(allows(lambda, call), `${lambda.name} (${what}) made ${JSON.stringify(call)}`).toBe(true);
  }

  /** A request through the app, its AWS calls checked against the Lambda that would serve it. */
  async function request(method: string, path: string, send: () => Promise<Response>): Promise<Response> {
    recorder.take();
    const res = await send();
    expect(res.status, `${method} ${path}`).toBeLessThan(500);
    expectAllowed(lambdaFor(method, path), `${method} ${path}`);
    return res;
  }

  it('covers what each Lambda does on its routes and schedules', async () => {
    let alice!: Client;
    await request('POST', '/api/auth/dev-login', async () => {
      alice = await Client.signIn(stack, 'alice');
      return new Response(null, { status: 200 });
    });
    await request('GET', '/api/me', () => alice.session('/api/me'));
    const created = await request('POST', '/api/api-keys', () => alice.session('/api/api-keys', { method: 'POST', body: { name: 'ci' } }));
    const { key, id: keyId } = (await created.json()) as { key: string; id: string };
    await request('GET', '/api/api-keys', () => alice.session('/api/api-keys'));

    const skillBody = { name: 'Access Check', description: 'd', category: 'testing', files: [{ filename: 'SKILL.md', content: '# hi' }] };
    const published = await request('POST', '/api/publish', () => withKey(stack, key, '/api/publish', { body: skillBody }));
    const { id } = (await published.json()) as { id: string };
    // The same slug again: rejected after reading, writing nothing it may not.
    await request('POST', '/api/publish', () => withKey(stack, key, '/api/publish', { body: skillBody }));
    const versions = `/api/skills/${id}/versions`;
    await request('POST', versions, () => withKey(stack, key, versions, { body: { version: '1.1.0', files: [{ filename: 'SKILL.md', content: '# 1.1' }] } }));
    await request('POST', versions, () => alice.session(versions, { method: 'POST', body: { version: '1.2.0' } }));
    await request('POST', versions, () => alice.session(versions, { method: 'POST', body: { version: '1.2.0' } }));

    const started = await request('GET', '/api/auth/github', () => stack.request('/api/auth/github'));
    const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
    const code = github.issueCode({ id: 31337, login: 'access-check' });
    await request('GET', '/api/auth/github/callback', () =>
      stack.request(`/api/auth/github/callback?code=${code}&state=${state}`, { headers: { cookie: `skillpress_oauth_state=${state}` } }),
    );
    await request('GET', '/api/nowhere', () => stack.request('/api/nowhere'));
    await request('DELETE', `/api/api-keys/${keyId}`, () => alice.session(`/api/api-keys/${keyId}`, { method: 'DELETE' }));
    await request('POST', '/api/auth/logout', () => alice.session('/api/auth/logout', { method: 'POST' }));

    const siteBuild = lambdas.find((l) => l.name === 'site-build')!;
    recorder.take();
    expect(await triggerSiteBuild(stack.deps)).toBe('dispatched');
    expect(await triggerSiteBuild(stack.deps)).toBe('deferred');
    expect(await flushPendingSiteBuild(stack.deps)).toBe('deferred');
    expectAllowed(siteBuild, 'scheduled builds');

    expect([...exercised].sort()).toEqual(lambdas.map((l) => l.name).sort());
  });

  it('refuses what a Lambda is not granted', () => {
    const apiKeys = lambdas.find((l) => l.name === 'api-keys')!;
    expect(allows(apiKeys, { service: 'dynamodb', action: 'dynamodb:PutItem', partitionKeys: ['SKILL#x'] })).toBe(false);
    expect(allows(apiKeys, { service: 'dynamodb', action: 'dynamodb:UpdateItem', partitionKeys: ['APIKEY#x', 'SKILL#x'] })).toBe(false);
    expect(allows(apiKeys, { service: 'dynamodb', action: 'dynamodb:Scan', partitionKeys: [] })).toBe(false);
    expect(allows(apiKeys, { service: 's3', bucket: 'content', action: 's3:GetObject' })).toBe(false);
    const publish = lambdas.find((l) => l.name === 'publish')!;
    expect(allows(publish, { service: 's3', bucket: 'static', action: 's3:PutObject' })).toBe(false);
    expect(allows(publish, { service: 'dynamodb', action: 'dynamodb:DeleteTable', partitionKeys: [] })).toBe(false);
  });
});
