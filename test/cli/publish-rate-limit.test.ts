import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliResult, runCli } from '../support/cli-process.ts';
import { type FakeAnswer, fakeRegistryWorkspace } from '../support/fake-registry.ts';

/**
 * `skillpress publish --all` and `sync` against a registry whose rate limit refuses some publishes
 * (`429` with `Retry-After`): the run waits it out and goes on to the end, exits 0 when every
 * folder is published or unchanged, and otherwise exits non-zero naming each skill not published.
 * The real client in a child process (stdout a pipe, so the wait is said in a plain line).
 */

const { work, env, start } = fakeRegistryWorkspace('publish-rate-limit');
const KEY = `sk_${'k'.repeat(43)}`;

/** A folder of skill folders, none of which the registry has yet. */
function repository(name: string, slugs: string[]): string {
  const root = join(work, name);
  for (const slug of slugs) {
    mkdirSync(join(root, 'skills', slug), { recursive: true });
    writeFileSync(join(root, 'skills', slug, 'SKILL.md'), `---\nname: ${slug}\ndescription: The ${slug} skill. Use in tests.\n---\n# ${slug}\n`);
  }
  return root;
}

/** A registry that knows no skill and answers the publishes in turn with `answers` (then 201s). */
async function registryAnswering(answers: ((slug: string) => FakeAnswer)[]) {
  let publishes = 0;
  return start((url) => {
    if (url.pathname !== '/api/publish') return undefined;
    const answer = answers[publishes++];
    const slug = `publish-${publishes}`;
    return answer ? answer(slug) : { status: 201, body: created(slug) };
  });
}

const created = (slug: string) => ({ id: `id-${slug}`, slug, currentVersion: '1.0.0', paid: false, owner: { type: 'user', login: 'alice' } });
const rateLimited = (seconds: number) => (): FakeAnswer => ({
  status: 429,
  headers: { 'retry-after': String(seconds), 'ratelimit-limit': '5', 'ratelimit-remaining': '0', 'ratelimit-reset': String(seconds) },
  body: { error: { code: 'rate_limited', message: 'Too many new skills: at most 5 in any 60 seconds' } },
});

const sync = (cwd: string, registry: string, ...args: string[]) =>
  runCli(['sync', '--registry', registry, ...args], { cwd, env: { ...env, SKILLPRESS_API_KEY: KEY, NO_COLOR: '1' } });
const expectExit = (result: CliResult, code: number) => expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(code);
const publishRequests = (requests: string[]) => requests.filter((path) => path === '/api/publish').length;

describe('publish --all across the rate limit', () => {
  it('waits out a 429 for its Retry-After, sends that skill again and goes on, then exits 0', async () => {
    const root = repository('paced', ['alpha', 'beta', 'gamma']);
    const registry = await registryAnswering([(slug) => ({ status: 201, body: created(slug) }), rateLimited(1)]);
    const result = await sync(root, registry.url, '--changelog', 'First');
    expectExit(result, 0);
    expect(result.stdout).toContain('Rate limited (the registry limits how fast an account publishes): waiting 1 s, then publishing beta');
    const order = ['Published alpha@1.0.0', 'Rate limited', 'Published beta@1.0.0', 'Published gamma@1.0.0', '3 skills published, 0 unchanged.'];
    const at = order.map((text) => result.stdout.indexOf(text));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    // alpha, beta refused, beta again, gamma: nothing sent twice but the refused one.
    expect(publishRequests(registry.requests)).toBe(4);
  });

  it('says every new skill without a category of its own goes into general', async () => {
    const root = repository('uncategorised', ['delta']);
    const registry = await registryAnswering([]);
    const dry = await sync(root, registry.url, '--dry-run', '--json');
    expectExit(dry, 0);
    expect(dry.json.skills).toEqual([expect.objectContaining({ slug: 'delta', action: 'publish', category: 'general' })]);
    const plain = await sync(root, registry.url, '--dry-run');
    expect(plain.stdout).toMatch(/delta +1\.0\.0 \(new, in general, the default\)/);
    expect(publishRequests(registry.requests)).toBe(0);
  });

  it('goes on past a skill the registry refuses, and exits non-zero naming it, with what was published', async () => {
    const root = repository('refused', ['epsilon', 'zeta', 'eta']);
    const registry = await registryAnswering([
      rateLimited(1),
      (slug) => ({ status: 201, body: created(slug) }),
      () => ({ status: 500, body: { error: { code: 'internal', message: 'Something went wrong' } } }),
      // A wait no run should sit through: given up at once, with the registry's error.
      rateLimited(3600),
    ]);
    const result = await sync(root, registry.url, '--json');
    expectExit(result, 2);
    expect(result.json.error).toMatchObject({
      code: 'internal',
      message: '2 skills of 3 could not be published; 1 published, 0 unchanged',
      details: {
        eta: 'internal: Something went wrong',
        zeta: 'rate_limited: Too many new skills: at most 5 in any 60 seconds (try again in 3600 s)',
      },
    });
    expect(publishRequests(registry.requests)).toBe(4);
  });
});
