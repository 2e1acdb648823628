import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '#functions/platform/log';
import { fullRebuild } from '#functions/rebuild/full-rebuild';
import { flushPendingSiteBuild, triggerSiteBuild } from '#functions/services/site-build';
import { CATALOG_KEY } from '#core/static-paths';
import { readLock } from '#functions/store/site-build-lock';
import { type FakeGitHub, fakeGitHubEnv, startFakeGitHub } from '#scripts/local/fake-github';
import { Client, createTestStack, skillBody, type TestStack, withKey } from '../support/stack.ts';

let github: FakeGitHub;
const logLines: string[] = [];

beforeAll(async () => {
  github = await startFakeGitHub();
});
afterAll(() => github.close());

/** A stack with its own table, so each test starts with no lock item. */
async function siteStack(env: Record<string, string> = {}): Promise<TestStack> {
  const stack = await createTestStack(
    { log: createLogger('debug', (line) => logLines.push(line) > 0) },
    { ...fakeGitHubEnv(github), GITHUB_WORKFLOW_REF: 'release', ...env },
  );
  stack.setNow(T0);
  return stack;
}

const T0 = new Date('2030-01-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const MIN = 60_000;

beforeEach(() => {
  github.dispatches.length = 0;
});

describe('triggerSiteBuild', () => {
  it('dispatches the site workflow with the token, on the configured ref', async () => {
    const stack = await siteStack();
    expect(await triggerSiteBuild(stack.deps)).toBe('dispatched');
    expect(github.dispatches).toEqual([
      { owner: 'skillpress', repo: 'site', workflow: 'site.yml', ref: 'release', authorization: `token ${github.dispatchToken}` },
    ]);
  });

  it('skips a second call within 5 minutes and dispatches again once they have passed', async () => {
    const stack = await siteStack();
    expect(await triggerSiteBuild(stack.deps)).toBe('dispatched');
    stack.setNow(at(5 * MIN - 1));
    expect(await triggerSiteBuild(stack.deps)).toBe('deferred');
    expect(github.dispatches).toHaveLength(1);
    stack.setNow(at(5 * MIN));
    expect(await triggerSiteBuild(stack.deps)).toBe('dispatched');
    expect(github.dispatches).toHaveLength(2);
  });

  it('lets exactly one of many concurrent batches dispatch', async () => {
    const stack = await siteStack();
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => triggerSiteBuild(stack.deps)));
    expect(outcomes.filter((o) => o === 'dispatched')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'deferred')).toHaveLength(11);
    expect(github.dispatches).toHaveLength(1);
  });

  it('honours SITE_BUILD_INTERVAL_SECONDS', async () => {
    const stack = await siteStack({ SITE_BUILD_INTERVAL_SECONDS: '60' });
    await triggerSiteBuild(stack.deps);
    stack.setNow(at(MIN));
    expect(await triggerSiteBuild(stack.deps)).toBe('dispatched');
  });

  it('does nothing and writes nothing without a configured repository and workflow', async () => {
    const stack = await siteStack({ GITHUB_REPO: '', GITHUB_WORKFLOW: '' });
    expect(await triggerSiteBuild(stack.deps)).toBe('disabled');
    expect(await readLock(stack.deps.db)).toBeUndefined();
    expect(github.dispatches).toHaveLength(0);
  });

  it('survives a failed dispatch without throwing, gives the window back and keeps the build owed', async () => {
    const stack = await siteStack();
    github.failNext('/repos/', 503);
    expect(await triggerSiteBuild(stack.deps)).toBe('failed');
    expect(await readLock(stack.deps.db)).toEqual({ windowEndsAt: 0, pending: true });
    // The next batch, a second later, does not wait out a window nobody used.
    stack.setNow(at(1000));
    expect(await triggerSiteBuild(stack.deps)).toBe('dispatched');
    expect(logLines.join('\n')).not.toContain(github.dispatchToken);
  });

  it('fails softly when GitHub rejects the token', async () => {
    const stack = await siteStack({ GITHUB_TOKEN: 'ghp_wrong' });
    expect(await triggerSiteBuild(stack.deps)).toBe('failed');
    expect(github.dispatches).toHaveLength(0);
    expect(logLines.join('\n')).not.toContain('ghp_wrong');
  });
});

describe('scheduled site builds', () => {
  it('flushes a deferred build once its window has ended, and only once', async () => {
    const stack = await siteStack();
    await triggerSiteBuild(stack.deps);
    stack.setNow(at(MIN));
    expect(await triggerSiteBuild(stack.deps)).toBe('deferred');

    stack.setNow(at(4 * MIN));
    expect(await flushPendingSiteBuild(stack.deps)).toBe('deferred');
    stack.setNow(at(5 * MIN));
    expect(await flushPendingSiteBuild(stack.deps)).toBe('dispatched');
    stack.setNow(at(11 * MIN));
    expect(await flushPendingSiteBuild(stack.deps)).toBe('idle');
    expect(github.dispatches).toHaveLength(2);
  });

  it('has nothing to flush when no build was asked for', async () => {
    const stack = await siteStack();
    expect(await flushPendingSiteBuild(stack.deps)).toBe('idle');
    expect(github.dispatches).toHaveLength(0);
  });

  it('rebuilds every static file from DynamoDB on the daily full rebuild, then asks for a site build', async () => {
    const stack = await siteStack();
    stack.setNow(new Date()); // session cookies must expire within 400 days of the real time
    const alice = await Client.signIn(stack, 'alice');
    const res = await withKey(stack, await alice.createKey(), '/api/publish', { body: skillBody() });
    const { slug } = (await res.json()) as { slug: string };
    await stack.idle();
    // A static file lost or gone stale (a dead-lettered stream batch, a bad deploy) ...
    await stack.deps.staticStore.put(CATALOG_KEY, '{}');
    const result = await fullRebuild(stack.deps);
    expect(result).toMatchObject({ skills: 1, site: 'dispatched' });
    const catalog = JSON.parse(Buffer.from((await stack.deps.staticStore.get(CATALOG_KEY))!).toString('utf8')) as { skills: { slug: string }[] };
    expect(catalog.skills.map((s) => s.slug)).toEqual([slug]);
    expect(github.dispatches).toHaveLength(1);
  });
});
