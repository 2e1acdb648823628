import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../support/cli-in-process.ts';
import { type FakeRegistry, startFakeRegistry } from '../support/fake-registry.ts';

/**
 * `skillpress whoami` against registries on loopback that answer `GET /api/me` as Skillpress does
 * for an API key, and which registry a command talks to: `--registry`, else
 * SKILLPRESS_REGISTRY, else the one `login` saved, else the default.
 */

const KEY_A = `sk_${'a'.repeat(43)}`;
const KEY_B = `sk_${'b'.repeat(43)}`;
const work = mkdtempSync(join(tmpdir(), 'skillpress-whoami-'));
let a: FakeRegistry;
let b: FakeRegistry;
let refusing: FakeRegistry;

/** A registry whose `/api/me` knows one key, as `{user}`; anything else is a 401 as the server sends it. */
const me = (key: string, login: string) => (url: URL, headers?: IncomingHttpHeaders) => {
  if (url.pathname !== '/api/me') return undefined;
  if (headers?.authorization !== `Bearer ${key}`) return { status: 401, body: { error: { code: 'unauthenticated', message: 'Sign in first' } } };
  return { body: { user: { id: `dev:${login}`, login, name: `${login} Example` } } };
};

function home(name: string): Record<string, string> {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  return { HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_CACHE_HOME: join(dir, 'cache') };
}

beforeAll(async () => {
  a = await startFakeRegistry(me(KEY_A, 'alice'));
  b = await startFakeRegistry(me(KEY_B, 'bob'));
  refusing = await startFakeRegistry(me('sk_not_the_one_you_have', 'nobody'));
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close(), refusing?.close()]);
  rmSync(work, { recursive: true, force: true });
});

describe('skillpress whoami', () => {
  it('names the account the stored API key belongs to', async () => {
    const env = home('whoami');
    expect((await runInProcess(['login', '--key', KEY_A, '--registry', a.url], { cwd: work, env })).code).toBe(0);
    const human = await runInProcess(['whoami', '--registry', a.url], { cwd: work, env });
    expect(human.code).toBe(0);
    expect(human.stdout).toBe(`alice (alice Example) on ${a.url}\n`);
    const json = await runInProcess(['whoami', '--registry', a.url, '--json'], { cwd: work, env });
    expect(json.json).toEqual({ registry: a.url, user: { id: 'dev:alice', login: 'alice', name: 'alice Example' } });
  });

  it('explains a refused key (exit 1) instead of printing a bare 401', async () => {
    const result = await runInProcess(['whoami', '--registry', refusing.url], { cwd: work, env: { ...home('refused'), SKILLPRESS_API_KEY: KEY_A } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error unauthenticated: ${refusing.url} did not accept SKILLPRESS_API_KEY (Sign in first)`);
    expect(result.stderr).toContain('skillpress login');
    expect(result.stderr).toContain('/api/me for browser sessions only');
  });

  it('asks for a key when there is none, without calling the registry', async () => {
    const before = a.requests.length;
    const result = await runInProcess(['whoami', '--registry', a.url, '--json'], { cwd: work, env: home('no-key') });
    expect(result.code).toBe(1);
    expect(result.json.error).toMatchObject({ code: 'unauthenticated', message: `no API key for ${a.url}` });
    expect(a.requests.length).toBe(before);
  });
});

describe('which registry a command uses', () => {
  it('is the one login saved, unless SKILLPRESS_REGISTRY or --registry names another', async () => {
    const env = home('choice');
    const login = await runInProcess(['login', '--key', KEY_A, '--registry', `${a.url}/`, '--json'], { cwd: work, env });
    expect(login.json).toEqual({
      registry: a.url,
      credentials: join(env.XDG_CONFIG_HOME!, 'skillpress/credentials.json'),
      config: join(env.XDG_CONFIG_HOME!, 'skillpress/config.json'),
    });
    expect(JSON.parse(readFileSync(login.json.config, 'utf8'))).toEqual({ registry: a.url });

    const saved = await runInProcess(['whoami', '--json'], { cwd: work, env });
    expect(saved.json).toMatchObject({ registry: a.url, user: { login: 'alice' } });

    const fromEnv = await runInProcess(['whoami', '--json'], { cwd: work, env: { ...env, SKILLPRESS_REGISTRY: b.url, SKILLPRESS_API_KEY: KEY_B } });
    expect(fromEnv.json).toMatchObject({ registry: b.url, user: { login: 'bob' } });

    const fromFlag = await runInProcess(['whoami', '--json', '--registry', a.url], { cwd: work, env: { ...env, SKILLPRESS_REGISTRY: b.url } });
    expect(fromFlag.json).toMatchObject({ registry: a.url, user: { login: 'alice' } });
  });

  it('falls back to the local default, and names the config file when what it saved is broken', async () => {
    const env = home('default');
    const none = await runInProcess(['whoami', '--json'], { cwd: work, env });
    expect(none.json.error.message).toBe('no API key for http://127.0.0.1:8787');

    mkdirSync(join(env.XDG_CONFIG_HOME!, 'skillpress'), { recursive: true });
    const config = join(env.XDG_CONFIG_HOME!, 'skillpress/config.json');
    writeFileSync(config, '{"registry": "ftp://example.test"}');
    const wrong = await runInProcess(['whoami', '--json'], { cwd: work, env });
    expect(wrong.json.error).toMatchObject({ code: 'usage', message: `"registry" in ${config} must be an http(s) URL, got ftp:` });
    writeFileSync(config, '["not", "settings"]');
    const broken = await runInProcess(['whoami', '--json'], { cwd: work, env });
    expect(broken.code).toBe(1);
    expect(broken.json.error).toMatchObject({ code: 'config_invalid', hint: expect.stringContaining('skillpress login') });
  });
});
