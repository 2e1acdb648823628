import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childPids } from '#scripts/local/server-process';
import { ensureStorage } from '#scripts/local/stack';
import { seedSkills } from '#scripts/seed-store';
import { openDataDir } from '../reliability/support/store.ts';
import { eventually } from '../support/eventually.ts';
import { call, startServer } from '../support/server-process.ts';
import { plantFault } from '../support/unbuildable-skill.ts';
import { skillFile } from '../support/skill-md.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'skillpress-e2e-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('npm start', () => {
  it('serves an empty catalog and discovery index from a new store, before anything is published', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'skillpress-e2e-empty-'));
    const server = await startServer({ DATA_DIR: empty });
    try {
      const catalog = await call(server.baseUrl, '/.well-known/skills.json');
      expect([catalog.status, catalog.body?.schemaVersion, catalog.body?.count, catalog.body?.skills]).toEqual([200, 1, 0, []]);
      const discovery = await call(server.baseUrl, '/.well-known/agent-skills/index.json');
      expect([discovery.status, discovery.body?.skills]).toEqual([200, []]);
      // ClawHub's clients find the API here (a 404 under npm start before).
      for (const name of ['clawhub', 'clawdhub']) {
        const wellKnown = await call(server.baseUrl, `/.well-known/${name}.json`);
        expect([wellKnown.status, wellKnown.body]).toEqual([200, { apiBase: server.baseUrl }]);
      }
      expect(server.output()).not.toContain('did not stop cleanly');
    } finally {
      await server.stop('SIGINT');
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('runs sign-in, keys, publish and versions, and keeps them across a restart', async () => {
    const first = await startServer({ DATA_DIR: dataDir });
    const base = first.baseUrl;
    const login = await call(base, '/api/auth/dev-login', { method: 'POST', body: { login: 'alice' }, headers: { origin: base } });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const key = await call(base, '/api/api-keys', { method: 'POST', body: { name: 'ci' }, headers: { cookie, origin: base } });
    expect(key.status).toBe(201);
    const auth = { authorization: `Bearer ${key.body.key}` };
    const skill = await call(base, '/api/publish', { method: 'POST', headers: auth, body: { name: 'Restart Proof', description: 'd', category: 'testing' } });
    expect(skill.status).toBe(201);
    const v = await call(base, `/api/skills/${skill.body.id}/versions`, {
      method: 'POST',
      headers: auth,
      body: { version: '1.1.0', files: [skillFile('restart-proof', '# hi')] },
    });
    expect(v.status).toBe(201);
    const registry = await eventually(
      () => call(base, `/api/registry/${skill.body.slug}`),
      (r) => r.body?.currentVersion === '1.1.0',
    );
    expect(registry.body.versions.map((x: { version: string }) => x.version)).toEqual(['1.1.0', '1.0.0']);
    const catalog = await eventually(
      () => call(base, '/.well-known/skills.json'),
      (r) => r.body?.skills?.some((s: { slug: string; currentVersion: string }) => s.slug === skill.body.slug && s.currentVersion === '1.1.0'),
    );
    expect(catalog.headers.get('cache-control')).toBe('public, max-age=300');
    expect(await first.stop('SIGINT')).toBe(0);

    const second = await startServer({ DATA_DIR: dataDir });
    try {
      const again = await call(second.baseUrl, `/api/skills/${skill.body.id}/versions`, {
        method: 'POST',
        headers: auth,
        body: { version: '1.1.0', files: [skillFile('restart-proof')] },
      });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('version_exists');
      const me = await call(second.baseUrl, '/api/me', { headers: { cookie } });
      expect(me.body).toEqual({ user: { id: 'dev:alice', login: 'alice' }, admin: false });
      const served = await call(second.baseUrl, `/api/registry/${skill.body.slug}`);
      expect(served.body.currentVersion).toBe('1.1.0');
      const slug = await call(second.baseUrl, '/api/publish', {
        method: 'POST',
        headers: auth,
        body: { name: 'Restart Proof', description: 'd', category: 'testing' },
      });
      expect(slug.status).toBe(409);
    } finally {
      await second.stop();
    }
  });

  it('starts, serves and takes writes when a skill in the store cannot be rebuilt, and reports that skill as degraded', async () => {
    const poisoned = mkdtempSync(join(tmpdir(), 'skillpress-e2e-poisoned-'));
    // A store as a crash leaves it: committed skills whose rebuild never ran, one with a version
    // whose bundle the embedded S3 cannot store. The start runs the full rebuild over it.
    const store = await openDataDir(poisoned);
    await ensureStorage(store.deps.config, store.deps.s3);
    const [bad, ...good] = await seedSkills(store.deps, { count: 3, slugPrefix: 'poisoned' });
    await plantFault(store.deps.db, bad!.id, 'unstorable');
    await store.stop();

    const server = await startServer({ DATA_DIR: poisoned });
    try {
      expect(server.output()).toContain('could not rebuild 1 skills');
      expect(server.output()).toContain(`${bad!.slug}: InternalError`);
      for (const skill of good) expect((await call(server.baseUrl, `/api/registry/${skill.slug}`)).body?.currentVersion).toBe('1.0.0');
      const health = await call(server.baseUrl, '/api/health');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({
        status: 'degraded',
        rebuild: { failing: 1, skills: [{ skillId: bad!.id, slug: bad!.slug, stage: 'files', error: { code: 'InternalError' } }] },
      });

      // A new write is rebuilt and indexed while that skill keeps failing.
      const login = await call(server.baseUrl, '/api/auth/dev-login', { method: 'POST', body: { login: 'dora' }, headers: { origin: server.baseUrl } });
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const key = await call(server.baseUrl, '/api/api-keys', { method: 'POST', body: { name: 'ci' }, headers: { cookie, origin: server.baseUrl } });
      const fresh = await call(server.baseUrl, '/api/publish', {
        method: 'POST',
        headers: { authorization: `Bearer ${key.body.key}` },
        body: { name: 'After The Poison', description: 'd', category: 'testing' },
      });
      expect(fresh.status).toBe(201);
      const catalog = await eventually(
        () => call(server.baseUrl, '/.well-known/skills.json'),
        (r) => r.body?.skills?.some((s: { slug: string }) => s.slug === fresh.body.slug),
      );
      expect(catalog.body.skills.map((s: { slug: string }) => s.slug)).toEqual(expect.arrayContaining([fresh.body.slug, ...good.map((s) => s.slug)]));
      expect((await call(server.baseUrl, '/api/health')).body.rebuild.skills.map((s: { slug: string }) => s.slug)).toEqual([bad!.slug]);
      expect(await server.stop('SIGINT')).toBe(0);
    } finally {
      await server.stop('SIGKILL');
      rmSync(poisoned, { recursive: true, force: true });
    }
  });

  it('prints the listening line and stops its embedded services on Ctrl-C', async () => {
    const server = await startServer({ DATA_DIR: dataDir });
    expect(server.output()).toMatch(/^Skillpress listening on http:\/\/127\.0\.0\.1:\d+$/m);
    const children = childPids(server.child.pid!);
    expect(children.length).toBeGreaterThanOrEqual(2);
    expect(await server.stop('SIGINT')).toBe(0);
    const isAlive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    // The embedded servers exit once their parent lets go; on a busy machine that takes a moment.
    await expect.poll(() => children.filter(isAlive), { timeout: 15_000, interval: 100 }).toEqual([]);
  });
});
