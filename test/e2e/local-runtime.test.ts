import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childPids } from '#scripts/local/server-process';
import { call, startServer } from '../support/server-process.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'skillpress-e2e-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Calls `probe` until `ready` holds (a rebuild is asynchronous), for at most 10 s. */
async function eventually<T>(probe: () => Promise<T>, ready: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await probe();
    if (ready(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('npm start', () => {
  it('serves an empty catalog and discovery index from a new store, before anything is published', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'skillpress-e2e-empty-'));
    const server = await startServer({ DATA_DIR: empty });
    try {
      const catalog = await call(server.baseUrl, '/.well-known/skills.json');
      expect([catalog.status, catalog.body?.schemaVersion, catalog.body?.count, catalog.body?.skills]).toEqual([200, 1, 0, []]);
      const discovery = await call(server.baseUrl, '/.well-known/agent-skills/index.json');
      expect([discovery.status, discovery.body?.skills]).toEqual([200, []]);
      expect(server.output()).not.toContain('did not stop cleanly');
    } finally {
      await server.stop('SIGINT');
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('runs sign-in, keys, publish and versions, and keeps them across a restart', async () => {
    const first = await startServer({ DATA_DIR: dataDir });
    const base = first.baseUrl;
    const login = await call(base, '/api/auth/dev-login', { method: 'POST', body: { login: 'alice' } });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const key = await call(base, '/api/api-keys', { method: 'POST', body: { name: 'ci' }, headers: { cookie, origin: base } });
    expect(key.status).toBe(201);
    const auth = { authorization: `Bearer ${key.body.key}` };
    const skill = await call(base, '/api/publish', { method: 'POST', headers: auth, body: { name: 'Restart Proof', description: 'd', category: 'testing' } });
    expect(skill.status).toBe(201);
    const v = await call(base, `/api/skills/${skill.body.id}/versions`, { method: 'POST', headers: auth, body: { version: '1.1.0', files: [{ filename: 'SKILL.md', content: '# hi' }] } });
    expect(v.status).toBe(201);
    const registry = await eventually(() => call(base, `/api/registry/${skill.body.slug}`), (r) => r.body?.currentVersion === '1.1.0');
    expect(registry.body.versions.map((x: { version: string }) => x.version)).toEqual(['1.1.0', '1.0.0']);
    const catalog = await eventually(() => call(base, '/.well-known/skills.json'), (r) => r.body?.skills?.some((s: { slug: string; currentVersion: string }) => s.slug === skill.body.slug && s.currentVersion === '1.1.0'));
    expect(catalog.headers.get('cache-control')).toBe('public, max-age=300');
    expect(await first.stop('SIGINT')).toBe(0);

    const second = await startServer({ DATA_DIR: dataDir });
    try {
      const again = await call(second.baseUrl, `/api/skills/${skill.body.id}/versions`, { method: 'POST', headers: auth, body: { version: '1.1.0' } });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('version_exists');
      const me = await call(second.baseUrl, '/api/me', { headers: { cookie } });
      expect(me.body).toEqual({ user: { id: 'dev:alice', login: 'alice' } });
      const served = await call(second.baseUrl, `/api/registry/${skill.body.slug}`);
      expect(served.body.currentVersion).toBe('1.1.0');
      const slug = await call(second.baseUrl, '/api/publish', { method: 'POST', headers: auth, body: { name: 'Restart Proof', description: 'd', category: 'testing' } });
      expect(slug.status).toBe(409);
    } finally {
      await second.stop();
    }
  });

  it('prints the listening line and stops its embedded services on Ctrl-C', async () => {
    const server = await startServer({ DATA_DIR: dataDir });
    expect(server.output()).toMatch(/^Skillpress listening on http:\/\/127\.0\.0\.1:\d+$/m);
    const children = childPids(server.child.pid!);
    expect(children.length).toBeGreaterThanOrEqual(2);
    expect(await server.stop('SIGINT')).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const alive = children.filter((pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
    expect(alive).toEqual([]);
  });
});
