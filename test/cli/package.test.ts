import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { packagedFiles } from '../../cli/bundle.mjs';
import { type CliResult, runCli } from '../support/cli-process.ts';
import { call, type ServerProcess, startServer } from '../support/server-process.ts';

/**
 * The CLI as someone outside this repository gets it: `npm pack` in cli/, then
 * `npm install -g` of the tarball into an empty prefix, with no registry to fetch anything from
 * (the package has no dependencies), then the installed `skillpress` against a running registry.
 */

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

const cliDir = fileURLToPath(new URL('../../cli/', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'skillpress-package-'));
const prefix = join(work, 'prefix');
const exec = promisify(execFile);
// Only Node itself on the PATH: nothing from the repository's node_modules/.bin can be reached.
const env = {
  PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
  HOME: join(work, 'home'),
  XDG_CONFIG_HOME: join(work, 'config'),
  XDG_CACHE_HOME: join(work, 'cache'),
};
let tarball: string;
let server: ServerProcess;

const skillpress = (cwd: string, ...args: string[]) => runCli(args, { cwd, env, executable: join(prefix, 'bin', 'skillpress') });
const expectExit = (result: CliResult, code: number) => expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(code);

beforeAll(async () => {
  const npm = (args: string[], cwd: string) =>
    exec('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, env: { ...process.env, npm_config_cache: join(work, 'npm-cache') } });
  await npm(['pack', '--pack-destination', work], cliDir);
  tarball = join(work, readdirSync(work).find((f) => /^skillpress-.*\.tgz$/.test(f))!);
  mkdirSync(prefix);
  await npm(['install', '--global', '--prefix', prefix, '--offline', tarball], work);
  server = await startServer({ DATA_DIR: join(work, 'data') });
});

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('the skillpress package', () => {
  it('holds the launcher, the bundle, the README and the manifest, and depends on nothing', async () => {
    const { stdout } = await exec('tar', ['-tzf', tarball]);
    expect(stdout.trim().split('\n').sort()).toEqual(
      ['package/README.md', ...packagedFiles().map((name) => `package/dist/${name}`), 'package/package.json'].sort(),
    );
    const manifest = JSON.parse(readFileSync(join(prefix, 'lib/node_modules/skillpress/package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: 'skillpress', bin: { skillpress: 'dist/skillpress.mjs' }, engines: { node: '>=20' } });
    expect(manifest.dependencies).toBeUndefined();
  });

  it('imports nothing but Node built-ins: every dependency is inside the bundle, which the launcher loads', async () => {
    const dist = join(prefix, 'lib/node_modules/skillpress/dist');
    // What each module imports, as esbuild's parser reads it (static, dynamic and require() with a
    // literal): a pattern over minified text also matches strings that merely hold "import".
    const specifiers = async (file: string) => {
      const { metafile } = await build({
        entryPoints: [join(dist, file)],
        bundle: true,
        write: false,
        metafile: true,
        platform: 'node',
        format: 'esm',
        external: ['*'],
        logLevel: 'silent',
      });
      return Object.values(metafile.inputs).flatMap((input) => input.imports.map((imported) => imported.path));
    };
    const launcher = readFileSync(join(dist, 'skillpress.mjs'), 'utf8');
    expect(launcher.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(await specifiers('skillpress.mjs')).toEqual(['node:module', './cli.mjs']);
    const modules = readdirSync(dist).filter((f) => f !== 'skillpress.mjs' && f.endsWith('.mjs'));
    const bundle = (await Promise.all(modules.map(specifiers))).flat();
    expect(bundle.length).toBeGreaterThan(0);
    // Node's built-ins, and the bundle's own modules beside it.
    expect(bundle.filter((s) => !s.startsWith('node:') && !modules.includes(s.replace(/^\.\//, '')))).toEqual([]);
    // Loaded by the scanner when a compressed payload turns up, not at every start.
    expect(await specifiers('cli.mjs')).not.toContain('node:zlib');
  });

  it('installs with npm install -g from the tarball and runs from the prefix', async () => {
    const version = await skillpress(work, '--version');
    expectExit(version, 0);
    expect(version.stdout).toBe(`${JSON.parse(readFileSync(join(cliDir, 'package.json'), 'utf8')).version}\n`);
  });

  it('scans a folder with a shell script: the grammar is read from the files beside the bundle', async () => {
    const folder = join(work, 'scanned');
    mkdirSync(join(folder, 'scripts'), { recursive: true });
    writeFileSync(join(folder, 'SKILL.md'), '---\nname: scanned\ndescription: Scanned by the packed CLI.\n---\n# Scanned\n');
    writeFileSync(join(folder, 'scripts/run.sh'), '#!/bin/sh\necho "$1" | tr a-z A-Z\n');
    const scanned = await skillpress(folder, 'scan', '--json');
    expectExit(scanned, 0);
    expect(scanned.json.verdict).toBe('clean');
  });

  it('searches and installs a skill from a running registry', async () => {
    const base = server.baseUrl;
    const login = await call(base, '/api/auth/dev-login', { method: 'POST', body: { login: 'packer' }, headers: { origin: base } });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const key = (await call(base, '/api/api-keys', { method: 'POST', body: { name: 'package test' }, headers: { cookie, origin: base } })).body.key;
    const files = [
      { filename: 'SKILL.md', content: '---\nname: packed-skill\ndescription: Installed by the packed CLI.\n---\n# Packed\n' },
      { filename: 'scripts/run.sh', content: '#!/bin/sh\necho packed\n' },
    ];
    const published = await call(base, '/api/publish', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: { name: 'Packed skill', slug: 'packed-skill', description: 'Installed by the packed CLI.', category: 'testing', files },
    });
    expect(published.status, JSON.stringify(published.body)).toBe(201);
    // The rebuild writes the registry document and the catalog a moment after the publish.
    const listed = async () =>
      (await call(base, '/api/registry/packed-skill')).status === 200 &&
      (await call(base, '/.well-known/skills.json')).body?.skills?.some((s: { slug: string }) => s.slug === 'packed-skill');
    for (let tries = 0; !(await listed()) && tries < 400; tries++) await new Promise((r) => setTimeout(r, 25));

    const project = join(work, 'project');
    mkdirSync(project);
    const found = await skillpress(project, 'search', 'packed', '--json', '--registry', base);
    expectExit(found, 0);
    expect(found.json.skills.map((s: { slug: string }) => s.slug)).toEqual(['packed-skill']);

    const installed = await skillpress(project, 'install', 'packed-skill', '--json', '--registry', base);
    expectExit(installed, 0);
    const path = installed.json.installed[0].path;
    expect(readFileSync(join(project, path, 'SKILL.md'), 'utf8')).toBe(files[0]!.content);
    expect(readFileSync(join(project, path, 'scripts/run.sh'), 'utf8')).toBe(files[1]!.content);
  });
});
