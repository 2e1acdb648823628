import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleIntegrity, decodeFile, fileEntries } from '#core/bundle';
import { runInProcess } from '../support/cli-in-process.ts';
import { type FakeRegistry, fakeRegistryWorkspace, type Route, skillRoutes, startFakeRegistry } from '../support/fake-registry.ts';

/**
 * Which registry gets which API key: SKILLPRESS_API_KEY goes only to the registry the command
 * uses (--registry, SKILLPRESS_REGISTRY, the saved one), a stored key only to the registry it was
 * stored for; a registry that a committed lockfile names gets neither, even for a paid or private
 * skill, and even when it answers a static lookup with 404 to make the client ask the API.
 */

const { work, env } = fakeRegistryWorkspace('api-key-scope');
const files = [{ filename: 'SKILL.md', content: '# hello\n' }];

/** A registry serving `hello` that records every Authorization header it is sent; `privateOnly` 404s the static documents. */
async function recording(seen: string[], privateOnly = false): Promise<FakeRegistry> {
  const honest = skillRoutes([{ slug: 'hello', files }]);
  const route: Route = (url, headers) => {
    if (headers?.authorization) seen.push(`${url.pathname} ${headers.authorization}`);
    if (privateOnly && url.pathname.startsWith('/api/registry/')) return undefined;
    if (url.pathname.startsWith('/api/me/registry/')) return honest(new URL(url.pathname.replace('/api/me/registry/', '/api/registry/'), url), headers);
    if (url.pathname.endsWith('/download-tokens')) return { status: 201, body: { token: 'sdt_minted' } };
    return honest(url, headers);
  };
  return startFakeRegistry(route);
}

/** Runs `check` with two recording registries, closed afterwards. */
async function withRegistries(check: (own: FakeRegistry & { seen: string[] }, other: FakeRegistry & { seen: string[] }) => Promise<void>, privateOther = true) {
  const ownSeen: string[] = [];
  const otherSeen: string[] = [];
  const own = Object.assign(await recording(ownSeen), { seen: ownSeen });
  const other = Object.assign(await recording(otherSeen, privateOther), { seen: otherSeen });
  try {
    await check(own, other);
  } finally {
    await Promise.all([own.close(), other.close()]);
  }
}

let projects = 0;
/** A project whose committed lockfile pins hello from `registry`, paid and private, so installing it would use a key. */
function projectLockedTo(registry: string): string {
  const dir = join(work, `project-${++projects}`);
  mkdirSync(dir, { recursive: true });
  const bytes = files.map((f) => decodeFile(f)!);
  const entry = {
    version: '1.0.0',
    integrity: bundleIntegrity(bytes),
    files: fileEntries(bytes),
    id: 'fake-0',
    registry,
    path: '.agents/skills/hello',
    spec: 'latest',
    direct: true,
    paid: true,
    private: true,
  };
  writeFileSync(join(dir, 'skillpress-lock.json'), JSON.stringify({ lockfileVersion: 1, skills: { hello: entry } }));
  return dir;
}

function saveConfig(home: string, config: unknown, credentials?: unknown): Record<string, string> {
  const configHome = join(work, home);
  mkdirSync(join(configHome, 'skillpress'), { recursive: true });
  writeFileSync(join(configHome, 'skillpress', 'config.json'), JSON.stringify(config));
  if (credentials) writeFileSync(join(configHome, 'skillpress', 'credentials.json'), JSON.stringify(credentials), { mode: 0o600 });
  return { ...env, XDG_CONFIG_HOME: configHome };
}

describe('the API keys the client sends', () => {
  it('never sends SKILLPRESS_API_KEY to a registry the lockfile names, only to the one the user configured', () =>
    withRegistries(async (own, foreign) => {
      const dir = projectLockedTo(foreign.url);
      const configured = saveConfig('config-env-key', { registry: own.url });
      const result = await runInProcess(['install', '--json'], { cwd: dir, env: { ...configured, SKILLPRESS_API_KEY: 'sk_for_own_registry' } });
      // Without a key the foreign registry cannot deliver a private skill; what matters is that it never saw ours.
      expect(result.code, result.stdout).not.toBe(0);
      expect(foreign.seen).toEqual([]);

      // The configured registry does get it.
      await runInProcess(['whoami', '--json'], { cwd: dir, env: { ...configured, SKILLPRESS_API_KEY: 'sk_for_own_registry' } });
      expect(own.seen).toContain('/api/me Bearer sk_for_own_registry');
    }));

  it('sends a registry the lockfile names the key stored for it, and nothing else', () =>
    withRegistries(async (own, foreign) => {
      const dir = projectLockedTo(foreign.url);
      const savedAt = '2025-01-01T00:00:00.000Z';
      const configured = saveConfig(
        'config-stored-keys',
        { registry: own.url },
        { registries: { [own.url]: { apiKey: 'sk_stored_own', savedAt }, [foreign.url]: { apiKey: 'sk_stored_foreign', savedAt } } },
      );
      const result = await runInProcess(['install', '--json'], { cwd: dir, env: { ...configured, SKILLPRESS_API_KEY: 'sk_env' } });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(foreign.seen.length).toBeGreaterThan(0);
      expect(foreign.seen.every((line) => line.endsWith('Bearer sk_stored_foreign'))).toBe(true);
      expect(own.seen).toEqual([]);
    }));

  it('gives a mistyped --registry neither the environment key of the configured registry nor a stored key', () =>
    withRegistries(async (own, typo) => {
      const dir = join(work, `project-${++projects}`);
      mkdirSync(dir, { recursive: true });
      const configured = saveConfig(
        'config-typo',
        { registry: own.url },
        { registries: { [own.url]: { apiKey: 'sk_stored_own', savedAt: '2025-01-01T00:00:00.000Z' } } },
      );
      const result = await runInProcess(['whoami', '--registry', typo.url, '--json'], {
        cwd: dir,
        env: { ...configured, SKILLPRESS_REGISTRY: own.url, SKILLPRESS_API_KEY: 'sk_env' },
      });
      expect(result.json.error.code).toBe('unauthenticated');
      expect(typo.seen).toEqual([]);
    }, false));
});
