import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import semver from 'semver';
import { afterAll, describe, expect, it } from 'vitest';
import { registryKey, versionsKey } from '#core/static-paths';
import { ensureStorage } from '#scripts/local/stack';
import { seedSkills } from '#scripts/seed-store';
import { call, type ServerProcess, startServer } from '../support/server-process.ts';
import { type Item, openDataDir, readObjects, scanItems } from './support/store.ts';
import { skillFile } from '../support/skill-md.ts';

/**
 * Crashes: the server is killed (SIGKILL, no chance to finish anything) in the middle of a burst
 * of publishes and started again on the same DATA_DIR. Every publish it acknowledged with a 201
 * must be there and rebuilt into the registry JSON; nothing a crash cut short may be visible.
 */

const dirs: string[] = [];
const servers: ServerProcess[] = [];
afterAll(async () => {
  // A failed expectation must not leave a server (and its embedded services) running.
  for (const server of servers) await server.stop('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
async function start(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServer(env);
  servers.push(server);
  return server;
}
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'skillpress-crash-'));
  dirs.push(dir);
  return dir;
}

interface Attempt {
  kind: 'skill' | 'version';
  slug: string;
  version: string;
  status?: number;
  body?: { id?: string };
}

const BURST = 48;
const IN_FLIGHT = 8;

describe('a crash in the middle of a burst of publishes', () => {
  it('keeps and rebuilds every acknowledged version, and shows nothing half-written, over two crashes', async () => {
    const DATA_DIR = dataDir();
    const env = { DATA_DIR, SKILLPRESS_PUBLISH_LIMIT: '100000', SKILLPRESS_VERSION_LIMIT: '100000' };
    let server = await start(env);
    const login = await call(server.baseUrl, '/api/auth/dev-login', { method: 'POST', body: { login: 'alice' }, headers: { origin: server.baseUrl } });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const key = (await call(server.baseUrl, '/api/api-keys', { method: 'POST', body: { name: 'ci' }, headers: { cookie, origin: server.baseUrl } })).body
      .key as string;
    const auth = { authorization: `Bearer ${key}` };
    const base = await call(server.baseUrl, '/api/publish', {
      method: 'POST',
      headers: auth,
      body: { name: 'Crash Base', description: 'd', category: 'testing' },
    });
    expect(base.status).toBe(201);
    const baseId = base.body.id as string;

    const attempts: Attempt[] = [];
    for (const round of [1, 2]) {
      const url = server.baseUrl;
      const planned: Attempt[] = Array.from({ length: BURST }, (_, i) =>
        i % 2 === 0 ? { kind: 'skill', slug: `crash-${round}-${i}`, version: '1.0.0' } : { kind: 'version', slug: 'crash-base', version: `${round}.${i}.0` },
      );
      attempts.push(...planned);
      let acknowledged = 0;
      let crashed: Promise<void> | undefined;
      const send = async (attempt: Attempt) => {
        const files = [skillFile(attempt.slug, `# ${attempt.slug} ${attempt.version}`)];
        const [path, body] =
          attempt.kind === 'skill'
            ? ['/api/publish', { name: attempt.slug, slug: attempt.slug, description: 'crash', category: 'testing', files }]
            : [`/api/skills/${baseId}/versions`, { version: attempt.version, files }];
        try {
          const res = await fetch(url + path, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
          const text = await res.text();
          attempt.status = res.status;
          attempt.body = JSON.parse(text);
          if (res.status === 201 && ++acknowledged === BURST / 3) crashed = server.crash();
        } catch {
          // The connection died with the server: not acknowledged.
        }
      };
      // At most IN_FLIGHT at once, so the crash lands with requests (and rebuilds) in progress.
      let next = 0;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next < planned.length && !crashed) await send(planned[next++]!);
        }),
      );
      await crashed;
      expect(planned.filter((a) => a.status !== undefined && a.status !== 201)).toEqual([]);
      expect(planned.filter((a) => a.status === 201).length).toBeGreaterThanOrEqual(BURST / 3);

      server = await start(env);
      expect(server.output()).toContain('did not stop cleanly last time');
      await expectAcknowledgedServed(server.baseUrl, attempts, baseId);
    }
    expect(await server.stop('SIGINT')).toBe(0);
    await expectStoreConsistent(DATA_DIR);
  });

  it('rebuilds on start what an unclean stop left unbuilt, and skips that after a clean stop', async () => {
    const DATA_DIR = dataDir();
    // Committed skills whose rebuild never ran: exactly what a crash right after a commit leaves.
    const store = await openDataDir(DATA_DIR);
    await ensureStorage(store.deps.config, store.deps.s3);
    const skills = await seedSkills(store.deps, { count: 3, slugPrefix: 'unbuilt' });
    await store.stop();

    const server = await start({ DATA_DIR });
    expect(server.output()).toContain('rebuilt the static files of 3 skills');
    for (const skill of skills) expect((await call(server.baseUrl, `/api/registry/${skill.slug}`)).body.currentVersion).toBe('1.0.0');
    expect(await server.stop('SIGINT')).toBe(0);

    const again = await start({ DATA_DIR });
    expect(again.output()).not.toContain('did not stop cleanly');
    expect(await again.stop('SIGINT')).toBe(0);
  });
});

/** Every acknowledged publish is served: its registry JSON, its versions list and its content. */
async function expectAcknowledgedServed(base: string, attempts: Attempt[], baseId: string): Promise<void> {
  for (const a of attempts.filter((x) => x.status === 201)) {
    const versions = await call(base, `/api/registry/${a.slug}/versions`);
    expect(versions.status, `${a.slug} ${a.version}`).toBe(200);
    expect(versions.body.versions.map((v: { version: string }) => v.version)).toContain(a.version);
    const id = a.kind === 'skill' ? a.body!.id! : baseId;
    const delivered = await call(base, `/api/deliver/${id}?version=${a.version}`);
    expect(delivered.status).toBe(200);
    expect(delivered.body.files[0].content).toBe(skillFile(a.slug, `# ${a.slug} ${a.version}`).content);
  }
  // The registry's current version is the highest it lists, acknowledged or not.
  const registry = await call(base, '/api/registry/crash-base');
  const listed = (await call(base, '/api/registry/crash-base/versions')).body.versions.map((v: { version: string }) => v.version) as string[];
  expect(registry.body.currentVersion).toBe(semver.rsort([...listed])[0]);
}

/**
 * The store after the crashes: every skill with META has registry files that match it, and
 * every registry file is backed by META and by the version items it lists.
 */
async function expectStoreConsistent(DATA_DIR: string): Promise<void> {
  const store = await openDataDir(DATA_DIR);
  try {
    const items = await scanItems(store.deps.db);
    const statics = await readObjects(store.deps.s3, store.deps.config.staticBucket);
    const metas = items.filter((i) => i.sk === 'META') as (Item & { id: string; slug: string; currentVersion: string })[];
    const versionItems = new Set(items.filter((i) => i.sk.startsWith('VERSION#')).map((i) => `${i.pk}/${i.sk}`));
    for (const meta of metas) {
      const registry = JSON.parse(statics.get(registryKey(meta.slug))?.toString() ?? 'null');
      expect(registry?.currentVersion, meta.slug).toBe(meta.currentVersion);
    }
    const metaSlugs = new Map(metas.map((m) => [m.slug, m.id]));
    for (const [key, bytes] of statics) {
      const slug = /^registry\/([a-z0-9-]+)\/versions\.json$/.exec(key)?.[1];
      if (!slug) continue;
      const id = metaSlugs.get(slug);
      expect(id, `registry files for ${slug} without META`).toBeDefined();
      for (const { version } of JSON.parse(bytes.toString()).versions as { version: string }[]) {
        expect(versionItems.has(`SKILL#${id}/VERSION#${version}`), `${slug} lists ${version} without its item`).toBe(true);
      }
      expect(statics.has(registryKey(slug))).toBe(true);
    }
    expect([...statics.keys()].filter((k) => k.startsWith('registry/') && !k.endsWith('/versions.json')).length).toBe(
      [...statics.keys()].filter((k) => k.endsWith('/versions.json')).length,
    );
    expect(statics.has(versionsKey('crash-base'))).toBe(true);
  } finally {
    await store.stop();
  }
}
