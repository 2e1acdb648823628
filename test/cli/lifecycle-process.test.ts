import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_ROOT } from '#cli/installer';
import { LOCKFILE_NAME } from '#cli/lockfile';
import { OBSERVED_WITHIN_MS } from '../support/behaviour.ts';
import { type CliResult, runCli } from '../support/cli-process.ts';
import { call, type ServerProcess, startServer } from '../support/server-process.ts';

/**
 * The client against the local runtime, as people run it, for what authors do to correct the
 * record: publishing is checked as the registry checks it, executable files stay executable, and
 * yanked versions and deprecated skills are skipped or warned about as docs/api.md §7.5 says.
 */

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const work = mkdtempSync(join(tmpdir(), 'skillpress-cli-lifecycle-'));
let server: ServerProcess;
let base: string;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startServer({ DATA_DIR: join(work, 'data'), SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
  base = server.baseUrl;
  const login = await call(base, '/api/auth/dev-login', { method: 'POST', body: { login: 'alice' }, headers: { origin: base } });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const key = await call(base, '/api/api-keys', { method: 'POST', body: { name: 'cli' }, headers: { cookie, origin: base } });
  env = {
    HOME: join(work, 'home'),
    XDG_CONFIG_HOME: join(work, 'config'),
    XDG_CACHE_HOME: join(work, 'cache'),
    SKILLPRESS_API_KEY: key.body.key,
  };
});

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

const cli = (cwd: string, ...args: string[]) => runCli([...args, '--registry', base], { cwd, env });
const expectExit = (result: CliResult, code: number) => expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(code);

function dir(...parts: string[]): string {
  const path = join(work, ...parts);
  mkdirSync(path, { recursive: true });
  return path;
}

/** A skill folder: SKILL.md with `frontMatter` (YAML lines), a heading, and `files`. */
function skillFolder(name: string, frontMatter: string, files: Record<string, string> = {}): string {
  const folder = dir('folders', name);
  writeFileSync(join(folder, 'SKILL.md'), `---\n${frontMatter}\n---\n# ${name}\n`);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(folder, path, '..'), { recursive: true });
    writeFileSync(join(folder, path), content);
  }
  return folder;
}

/**
 * Waits until the full registry document satisfies `ready`: the rebuild lands just after a write,
 * and a new skill with something to run holds the short `status: "pending"` shape until its run
 * in the sandbox clears its first version.
 */
async function registry(slug: string, ready: (doc: any) => boolean): Promise<any> {
  const deadline = Date.now() + OBSERVED_WITHIN_MS;
  for (;;) {
    const res = await call(base, `/api/registry/${slug}`);
    if ((res.status === 200 && res.body.status === undefined && ready(res.body)) || Date.now() > deadline) return res.body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const lock = (project: string) => JSON.parse(readFileSync(join(project, LOCKFILE_NAME), 'utf8'));

describe('publishing checks the folder as the registry does', () => {
  it('refuses a folder that is not a valid Agent Skill before sending anything, listing every problem', async () => {
    const folder = skillFolder('not-valid', 'name: Not Valid\nlicense: 2024');
    const result = await cli(folder, 'publish', '--category', 'testing');
    expectExit(result, 1);
    expect(result.stderr).toContain('error invalid_skill: SKILL.md is not a valid Agent Skill');
    expect(result.stderr).toContain('- SKILL.md (name): name "Not Valid" must be lower-case letters and digits');
    expect(result.stderr).toContain('- SKILL.md (description): the front matter has no description');
    expect(result.stderr).toContain('- SKILL.md (license): license must be text');
    expect((await call(base, '/api/registry/not-valid')).status).toBe(404);

    const renamed = await cli(skillFolder('renamed', 'name: renamed\ndescription: d'), 'version', '1.1.0', '--slug', 'other-skill');
    expectExit(renamed, 1);
    expect(renamed.stderr).toContain(`name "renamed" must be the skill's slug, "other-skill"`);
  });

  it('reads its own keys under metadata, and the old top-level ones with a deprecation warning', async () => {
    const folder = skillFolder(
      'Keys Old And New',
      'name: keys-old-and-new\ndescription: Shows where keys go.\ncategory: Dev Tools\nflavour: mint\nmetadata:\n  author: example-org',
    );
    const result = await cli(folder, 'publish', '--json');
    expectExit(result, 0);
    expect(result.json.skill).toMatchObject({ slug: 'keys-old-and-new', name: 'Keys Old And New', category: 'dev-tools' });
    expect(result.stderr).toContain('"category" at the top level of the SKILL.md front matter is deprecated');
    expect(result.stderr).toContain('"flavour" is not an Agent Skills front-matter key');
    expect(result.json.warnings).toHaveLength(2);

    const modern = skillFolder(
      'Keys Under Metadata',
      'name: keys-under-metadata\ndescription: d\nmetadata:\n  category: writing\n  dependencies: keys-old-and-new@^1.0.0',
    );
    const published = await cli(modern, 'publish', '--json');
    expectExit(published, 0);
    expect(published.json.warnings).toEqual([]);
    expect(published.stderr).not.toContain('warning');
    expect((await registry('keys-under-metadata', () => true)).dependencies).toEqual({ 'keys-old-and-new': '^1.0.0' });
  });

  it('keeps the executable bit from the folder to the install', async () => {
    const folder = skillFolder('run-scripts', 'name: run-scripts\ndescription: Runs a script.\nmetadata:\n  category: ops', {
      'scripts/run.sh': '#!/bin/sh\necho hi\n',
      'notes.md': 'not a program',
    });
    chmodSync(join(folder, 'scripts/run.sh'), 0o755);
    expectExit(await cli(folder, 'publish'), 0);
    await registry('run-scripts', () => true);
    const project = dir('projects', 'scripts');
    expectExit(await cli(project, 'install', 'run-scripts'), 0);
    const mode = (path: string) => statSync(join(project, DEFAULT_ROOT, 'run-scripts', path)).mode;
    expect(mode('scripts/run.sh') & 0o100).toBe(0o100);
    expect(mode('notes.md') & 0o111).toBe(0);
    expect(mode('SKILL.md') & 0o111).toBe(0);
  });
});

describe('yanked versions', () => {
  const pinned = () => join(work, 'projects', 'pinned');

  it('are skipped by ranges and "latest", yet a lockfile that pins one still installs it, with a warning', async () => {
    const folder = skillFolder('yankable', 'name: yankable\ndescription: Has a broken version.\nmetadata:\n  category: testing');
    expectExit(await cli(folder, 'publish'), 0);
    await registry('yankable', () => true);
    expectExit(await cli(folder, 'version', '1.1.0', '--changelog', 'Broken on Windows'), 0);
    await registry('yankable', (doc) => doc.currentVersion === '1.1.0');
    // A project that installed 1.1.0 while it was fine.
    expectExit(await cli(dir('projects', 'pinned'), 'install', 'yankable@^1.0.0'), 0);
    expect(lock(pinned()).skills.yankable.version).toBe('1.1.0');

    const yanked = await cli(folder, 'yank', 'yankable@1.1.0', '--reason', 'Deletes files on Windows', '--json');
    expectExit(yanked, 0);
    expect(yanked.json).toMatchObject({ slug: 'yankable', version: '1.1.0', yanked: true, yankReason: 'Deletes files on Windows', currentVersion: '1.0.0' });
    await registry('yankable', (doc) => doc.currentVersion === '1.0.0');

    // The pinned project reproduces its lockfile: 1.1.0, with a warning.
    rmSync(join(pinned(), DEFAULT_ROOT), { recursive: true });
    const reproduced = await cli(pinned(), 'install');
    expectExit(reproduced, 0);
    expect(reproduced.stdout).toContain('+ yankable@1.1.0');
    expect(reproduced.stderr).toContain(`yankable@1.1.0 is yanked (Deletes files on Windows); installed because ${LOCKFILE_NAME} pins it`);

    // A new project never gets it from a range or as the latest.
    const fresh = dir('projects', 'fresh');
    const ranged = await cli(fresh, 'install', 'yankable@^1.0.0', '--json');
    expectExit(ranged, 0);
    expect(ranged.json.installed[0].version).toBe('1.0.0');
    expect(ranged.stderr).not.toContain('yanked');
    const latest = await cli(dir('projects', 'latest'), 'install', 'yankable', '--json');
    expect(latest.json.installed[0].version).toBe('1.0.0');
    // Asked for by its exact version, it installs, with a warning.
    const exact = await cli(dir('projects', 'exact'), 'install', 'yankable@1.1.0', '--json');
    expectExit(exact, 0);
    expect(exact.json.installed[0].version).toBe('1.1.0');
    expect(exact.stderr).toContain('yankable@1.1.0 is yanked (Deletes files on Windows); installed because it was asked for by version');

    // list marks it; update moves the pinned project to the version the range allows.
    const listed = await cli(pinned(), 'list', '--json');
    expect(listed.json.skills[0]).toMatchObject({ slug: 'yankable', version: '1.1.0', yanked: true, latest: '1.0.0' });
    const updated = await cli(pinned(), 'update', '--json');
    expectExit(updated, 0);
    expect(updated.json.updates).toEqual([{ slug: 'yankable', from: '1.1.0', to: '1.0.0', changelogs: [] }]);
  });

  it('come back with yank --undo', async () => {
    const undone = await cli(work, 'yank', 'yankable@1.1.0', '--undo', '--json');
    expectExit(undone, 0);
    expect(undone.json).toMatchObject({ version: '1.1.0', yanked: false, currentVersion: '1.1.0' });
    await registry('yankable', (doc) => doc.currentVersion === '1.1.0');
    const ranged = await cli(dir('projects', 'after-undo'), 'install', 'yankable@^1.0.0', '--json');
    expect(ranged.json.installed[0].version).toBe('1.1.0');
  });

  it('need an exact version, and the author', async () => {
    expectExit(await cli(work, 'yank', 'yankable'), 1);
    expectExit(await cli(work, 'yank', 'yankable@^1.0.0'), 1);
    expectExit(await cli(work, 'yank', 'yankable@1.1.0', '--undo', '--reason', 'x'), 1);
    const bobLogin = await call(base, '/api/auth/dev-login', { method: 'POST', body: { login: 'bob' }, headers: { origin: base } });
    const cookie = bobLogin.headers.get('set-cookie')!.split(';')[0]!;
    const bobKey = (await call(base, '/api/api-keys', { method: 'POST', body: { name: 'bob' }, headers: { cookie, origin: base } })).body.key;
    const refused = await runCli(['yank', 'yankable@1.0.0', '--registry', base], { cwd: work, env: { ...env, SKILLPRESS_API_KEY: bobKey } });
    expectExit(refused, 1);
    expect(refused.stderr).toContain('error forbidden');
  });
});

describe('deprecated skills', () => {
  it('warn on install, update and list, until the deprecation is undone', async () => {
    const folder = skillFolder('retired', 'name: retired\ndescription: About to be retired.\nmetadata:\n  category: testing');
    expectExit(await cli(folder, 'publish'), 0);
    await registry('retired', () => true);
    const project = dir('projects', 'retired');
    expectExit(await cli(project, 'install', 'retired'), 0);

    const deprecated = await cli(work, 'deprecate', 'retired', '--message', 'Use yankable instead', '--json');
    expectExit(deprecated, 0);
    expect(deprecated.json).toMatchObject({ slug: 'retired', deprecated: 'Use yankable instead' });
    await registry('retired', (doc) => doc.deprecated === 'Use yankable instead');

    const warning = 'warning retired is deprecated: Use yankable instead';
    const installed = await cli(dir('projects', 'retired-new'), 'install', 'retired');
    expectExit(installed, 0);
    expect(installed.stderr).toContain(warning);
    const listed = await cli(project, 'list');
    expect(listed.stdout).toContain('deprecated');
    expect(listed.stderr).toContain(warning);
    expect((await cli(project, 'list', '--json')).json.skills[0].deprecated).toBe('Use yankable instead');
    const updated = await cli(project, 'update');
    expectExit(updated, 0);
    expect(updated.stderr).toContain(warning);

    expectExit(await cli(work, 'deprecate', 'retired'), 1);
    expectExit(await cli(work, 'deprecate', 'retired', '--undo'), 0);
    await registry('retired', (doc) => doc.deprecated === undefined);
    const quiet = await cli(project, 'list', '--json');
    expect(quiet.json.skills[0].deprecated).toBeNull();
    expect(quiet.stderr).not.toContain('deprecated');
  });
});
