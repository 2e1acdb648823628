import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packagedFiles } from '../../cli/bundle.mjs';
import { packCli } from '#scripts/release/cli-package';
import { eventually } from '../support/eventually.ts';
import { call, type ServerProcess, startServer } from '../support/server-process.ts';

/**
 * The registry serves its own client: `npm start` packs the `skillpress` package with its
 * origin as the default registry, and the command a skill page shows installs the skill when
 * pasted into a fresh shell — an empty folder, a home with no npm cache, nothing installed.
 */

const work = mkdtempSync(join(tmpdir(), 'skillpress-cli-from-registry-'));
let server: ServerProcess;
let base: string;

beforeAll(async () => {
  server = await startServer({ DATA_DIR: join(work, 'data'), SKILLPRESS_SITE: '0' });
  base = server.baseUrl;
  const login = await call(base, '/api/auth/dev-login', { method: 'POST', body: { login: 'alice' }, headers: { origin: base } });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const key = (await call(base, '/api/api-keys', { method: 'POST', body: { name: 'e2e' }, headers: { cookie, origin: base } })).body.key;
  const published = await call(base, '/api/publish', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: {
      name: 'Table Tidy',
      slug: 'table-tidy',
      description: 'Tidies tables',
      category: 'testing',
      files: [{ filename: 'SKILL.md', content: '---\nname: table-tidy\ndescription: Tidies tables\n---\n# Table Tidy\n' }],
    },
  });
  expect(published.status).toBe(201);
});

afterAll(async () => {
  if (server) await server.stop('SIGINT');
  rmSync(work, { recursive: true, force: true });
});

/** The entries of a .tgz: name → bytes (tar: 512-byte headers, names at 0, sizes in octal at 124). */
function untar(tgz: Buffer): Map<string, Buffer> {
  const tar = gunzipSync(tgz);
  const files = new Map<string, Buffer>();
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0; ) {
    const name = tar
      .subarray(at, at + 100)
      .toString('utf8')
      .replace(/\0.*$/s, '');
    const size = Number.parseInt(
      tar
        .subarray(at + 124, at + 136)
        .toString('utf8')
        .replace(/\0.*$/s, '')
        .trim(),
      8,
    );
    files.set(name, tar.subarray(at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

describe('the client from the registry', () => {
  it('serves the skillpress package at /cli/skillpress.tgz and at its version, defaulting to this origin and pinning its keys', async () => {
    const latest = await eventually(
      () => fetch(`${base}/cli/skillpress.tgz`),
      (res) => res.status === 200,
      60_000,
    );
    expect(latest.headers.get('content-type')).toBe('application/gzip');
    expect(latest.headers.get('cache-control')).toBe('public, max-age=300');
    const files = untar(Buffer.from(await latest.arrayBuffer()));
    expect([...files.keys()].sort()).toEqual(
      ['package/README.md', ...packagedFiles().map((name) => `package/dist/${name}`), 'package/package.json', 'package/registry.json'].sort(),
    );
    // The keys it pins are the registry's own: those keys.json lists, ids and public keys.
    const served = (await (await fetch(`${base}/.well-known/skillpress/keys.json`)).json()) as { keys: { keyid: string; publicKey: string }[] };
    expect(JSON.parse(files.get('package/registry.json')!.toString())).toEqual({
      registry: base,
      keys: served.keys.map(({ keyid, publicKey }) => ({ keyid, publicKey })),
    });
    const manifest = JSON.parse(files.get('package/package.json')!.toString());
    expect(manifest).toMatchObject({ name: 'skillpress', bin: { skillpress: 'dist/skillpress.mjs' } });
    expect(manifest.dependencies).toBeUndefined();
    const versioned = await fetch(`${base}/cli/skillpress-${manifest.version}.tgz`);
    expect([versioned.status, versioned.headers.get('cache-control')]).toEqual([200, 'public, max-age=31536000, immutable']);
    expect((await fetch(`${base}/cli/skillpress-0.0.0-none.tgz`)).status).toBe(404);
  });

  it("installs a skill with the skill page's command, pasted into an empty folder with nothing installed", async () => {
    const project = join(work, 'fresh');
    const home = join(work, 'home');
    mkdirSync(project, { recursive: true });
    mkdirSync(home, { recursive: true });
    const run = await new Promise<{ code: number | null; output: string }>((resolve) => {
      execFile(
        'npx',
        ['-y', `${base}/cli/skillpress.tgz`, 'install', 'table-tidy'],
        // A shell as a new user has it: a home with no npm cache and no skillpress settings.
        { cwd: project, env: { PATH: process.env.PATH ?? '', HOME: home, npm_config_update_notifier: 'false', NO_COLOR: '1' }, timeout: 120_000 },
        (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
      );
    });
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('table-tidy@1.0.0');
    expect(readFileSync(join(project, '.agents/skills/table-tidy/SKILL.md'), 'utf8')).toContain('# Table Tidy');
    expect(JSON.parse(readFileSync(join(project, 'skillpress-lock.json'), 'utf8')).skills['table-tidy'].registry).toBe(base);
  });

  it('packs the same bytes for the same sources and origin, and no registry file without one', async () => {
    const [a, b, bare] = await Promise.all([packCli('https://skills.example'), packCli('https://skills.example'), packCli()]);
    expect(a.equals(b)).toBe(true);
    expect(JSON.parse(untar(a).get('package/registry.json')!.toString())).toEqual({ registry: 'https://skills.example' });
    expect(untar(bare).has('package/registry.json')).toBe(false);
  });
});
