import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, stackFetch } from '../support/cli-in-process.ts';
import { publish } from '../support/delivery.ts';
import { Client, createTestStack, type TestStack } from '../support/stack.ts';

/**
 * The order of an install's requests, where it decides how long the install waits: the registry's
 * signing keys are asked for beside the skills' lookups, not after them, so no download waits
 * for a keys request that could have been answered meanwhile; the skills named are resolved in
 * one request, not a lookup each.
 */

const work = mkdtempSync(join(tmpdir(), 'skillpress-install-requests-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let stack: TestStack;
let env: Record<string, string>;
let aliceKey: string;

beforeAll(async () => {
  stack = await createTestStack();
  const alice = await Client.signIn(stack, 'alice');
  aliceKey = await alice.createKey();
  env = { HOME: join(work, 'home'), XDG_CACHE_HOME: join(work, 'cache'), XDG_CONFIG_HOME: join(work, 'config') };
});

describe('an install’s requests', () => {
  it('asks for the signing keys while the lookups are still unanswered', async () => {
    const skill = await publish(stack, aliceKey);
    await stack.idle();
    const served = stackFetch(stack);
    let keysAsked!: () => void;
    const keys = new Promise<void>((resolve) => (keysAsked = resolve));
    // A registry whose lookups answer only once the keys have been asked for: an install that
    // asked for them only after its lookups would wait here for ever.
    const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      const path = new URL(String(input)).pathname;
      if (path === '/.well-known/skillpress/keys.json') keysAsked();
      if (path.startsWith('/api/registry/')) await keys;
      return served(input, init);
    }) as typeof globalThis.fetch;
    const project = join(work, 'project');
    mkdirSync(project);
    const installed = await runInProcess(['install', skill.slug, '--registry', 'http://localhost', '--json'], { cwd: project, env, fetch });
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);
    expect(installed.json.installed.map((s: { slug: string }) => s.slug)).toEqual([skill.slug]);
  });

  it('resolves every skill it names in one request, a range included, and downloads each once', async () => {
    const skills = [await publish(stack, aliceKey), await publish(stack, aliceKey), await publish(stack, aliceKey)];
    await stack.idle();
    const served = stackFetch(stack);
    const paths: string[] = [];
    const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      paths.push(new URL(String(input)).pathname);
      return served(input, init);
    }) as typeof globalThis.fetch;
    const project = join(work, 'project-batch');
    mkdirSync(project);
    const names = [skills[0]!.slug, `${skills[1]!.slug}@^1.0.0`, skills[2]!.slug];
    const installed = await runInProcess(['install', ...names, '--registry', 'http://localhost', '--json'], { cwd: project, env, fetch });
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);
    expect(installed.json.installed.map((s: { slug: string }) => s.slug).sort()).toEqual(skills.map((s) => s.slug).sort());
    expect(paths.filter((path) => path === '/api/resolve')).toHaveLength(1);
    expect(paths.filter((path) => path.startsWith('/api/registry/'))).toEqual([]);
    expect(paths.filter((path) => path.startsWith('/bundles/') || path.startsWith('/api/deliver/'))).toHaveLength(3);
  });

  it('looks up on its own a skill the batch refused, with the hint a lookup gives, and writes nothing', async () => {
    const skill = await publish(stack, aliceKey);
    await stack.idle();
    const project = join(work, 'project-typo');
    mkdirSync(project);
    const typo = `${skill.slug.slice(0, -1)}x`;
    const result = await runInProcess(['install', skill.slug, typo, '--registry', 'http://localhost', '--json'], {
      cwd: project,
      env,
      fetch: stackFetch(stack),
    });
    expect(result.code).toBe(1);
    expect(result.json.error).toMatchObject({ code: 'not_found', message: expect.stringContaining(typo) });
    expect(result.json.error.hint).toContain(skill.slug);
  });
});
