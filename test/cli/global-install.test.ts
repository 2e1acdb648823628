import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { type CliResult, runCli } from '../support/cli-process.ts';
import { call, type ServerProcess, startServer } from '../support/server-process.ts';
import { skillFile } from '../support/skill-md.ts';

/**
 * `-g`: skills installed for the user, into the folders agents read for every project (as
 * `skills add -g` installs them), pinned in a lockfile of their own under the XDG data folder,
 * never in the project's. The client as a child process against the local runtime.
 */

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const work = mkdtempSync(join(tmpdir(), 'skillpress-global-'));
const home = join(work, 'home');
const env = {
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_CACHE_HOME: join(home, '.cache'),
  XDG_DATA_HOME: join(home, '.local/share'),
  NO_COLOR: '1',
};
const lockfile = join(home, '.local/share/skillpress/skillpress-lock.json');
let server: ServerProcess;
let base: string;

const cli = (cwd: string, args: string[], extra: Record<string, string> = {}) => runCli([...args, '--registry', base], { cwd, env: { ...env, ...extra } });
const expectExit = (result: CliResult, code: number) => expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(code);
const project = () => {
  const dir = join(work, 'project');
  mkdirSync(dir, { recursive: true });
  return dir;
};

async function publish(key: string, slug: string, version: string, body: string, id?: string): Promise<string> {
  const files = [skillFile(slug, body, `The ${slug} skill.`)];
  const res = id
    ? await call(base, `/api/skills/${id}/versions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: { version, files } })
    : await call(base, '/api/publish', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: { name: slug, slug, description: `The ${slug} skill.`, category: 'testing', files },
      });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  // Both documents an update reads: the registry document and the list of every version.
  await eventually(
    () => call(base, `/api/registry/${slug}`),
    (r) => r.body?.currentVersion === version,
  );
  await eventually(
    () => call(base, `/api/registry/${slug}/versions`),
    (r) => r.body?.versions?.some((v: { version: string; integrity?: string }) => v.version === version && v.integrity),
  );
  return id ?? res.body.id;
}

let key: string;
let toolId: string;

beforeAll(async () => {
  server = await startServer({ DATA_DIR: join(work, 'data') });
  base = server.baseUrl;
  const login = await call(base, '/api/auth/dev-login', { method: 'POST', body: { login: 'alice' }, headers: { origin: base } });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  key = (await call(base, '/api/api-keys', { method: 'POST', body: { name: 'global' }, headers: { cookie, origin: base } })).body.key;
  toolId = await publish(key, 'global-tool', '1.0.0', '# Global tool, one');
  await publish(key, 'project-tool', '1.0.0', '# Project tool');
});

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('skillpress install -g', () => {
  it("installs once into ~/.agents/skills, links it into Claude Code's user folder, and pins it outside the project", async () => {
    // A home folder with nothing in it yet, as a new account has.
    expect(existsSync(home)).toBe(false);
    const cwd = project();
    const result = await cli(cwd, ['install', '-g', 'global-tool', '--agent', 'claude-code,codex', '--json']);
    expectExit(result, 0);
    expect(result.json.installed).toEqual([expect.objectContaining({ slug: 'global-tool', version: '1.0.0', path: '.agents/skills/global-tool' })]);
    expect(result.json.lockfile).toBe(lockfile);
    expect(readFileSync(join(home, '.agents/skills/global-tool/SKILL.md'), 'utf8')).toContain('# Global tool, one');
    expect(lstatSync(join(home, '.claude/skills/global-tool')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(home, '.claude/skills/global-tool/SKILL.md'), 'utf8')).toContain('# Global tool, one');
    const lock = JSON.parse(readFileSync(lockfile, 'utf8'));
    expect(lock.skills['global-tool']).toMatchObject({ path: '.agents/skills/global-tool', links: ['.claude/skills/global-tool'], version: '1.0.0' });
    // The project is untouched: no lockfile, no folders.
    expect(readdirSync(cwd)).toEqual([]);

    // A project install beside it keeps to the project.
    expectExit(await cli(cwd, ['install', 'project-tool']), 0);
    expect(Object.keys(JSON.parse(readFileSync(join(cwd, 'skillpress-lock.json'), 'utf8')).skills)).toEqual(['project-tool']);
    expect(Object.keys(JSON.parse(readFileSync(lockfile, 'utf8')).skills)).toEqual(['global-tool']);
  });

  it('lists and updates the user-level skills, from any folder', async () => {
    await publish(key, 'global-tool', '1.1.0', '# Global tool, two', toolId);
    const elsewhere = join(work, 'elsewhere');
    mkdirSync(elsewhere, { recursive: true });
    const listed = await cli(elsewhere, ['list', '-g', '--json']);
    expectExit(listed, 0);
    expect(listed.json.skills).toEqual([expect.objectContaining({ slug: 'global-tool', version: '1.0.0', latest: '1.1.0', state: 'ok' })]);
    const updated = await cli(elsewhere, ['update', '--global', '--json']);
    expectExit(updated, 0);
    expect(updated.json.updates).toEqual([expect.objectContaining({ slug: 'global-tool', from: '1.0.0', to: '1.1.0' })]);
    expect(readFileSync(join(home, '.claude/skills/global-tool/SKILL.md'), 'utf8')).toContain('# Global tool, two');
    // The link stays recorded through the update.
    expect(JSON.parse(readFileSync(lockfile, 'utf8')).skills['global-tool']).toMatchObject({ version: '1.1.0', links: ['.claude/skills/global-tool'] });
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('puts the skills back from its lockfile, and uninstalls them with their links', async () => {
    const cwd = project();
    rmSync(join(home, '.agents/skills/global-tool'), { recursive: true });
    rmSync(join(home, '.claude/skills/global-tool'));
    expectExit(await cli(cwd, ['install', '-g']), 0);
    expect(readFileSync(join(home, '.claude/skills/global-tool/SKILL.md'), 'utf8')).toContain('# Global tool, two');

    const removed = await cli(cwd, ['uninstall', '-g', 'global-tool', '--json']);
    expectExit(removed, 0);
    expect(removed.json).toMatchObject({ removed: ['global-tool'], lockfile });
    expect(existsSync(join(home, '.agents/skills/global-tool'))).toBe(false);
    expect(existsSync(join(home, '.claude/skills/global-tool'))).toBe(false);
    expect(JSON.parse(readFileSync(lockfile, 'utf8')).skills).toEqual({});
    // The project's own install stays.
    expect(existsSync(join(cwd, '.agents/skills/project-tool/SKILL.md'))).toBe(true);
  });

  it("follows an agent's folder moved by its variable, and refuses what has no place under home", async () => {
    const cwd = project();
    const moved = await cli(cwd, ['install', '-g', 'global-tool', '--agent', 'claude-code', '--json'], { CLAUDE_CONFIG_DIR: join(home, 'claude-config') });
    expectExit(moved, 0);
    expect(moved.json.installed[0].path).toBe('claude-config/skills/global-tool');
    expect(existsSync(join(home, 'claude-config/skills/global-tool/SKILL.md'))).toBe(true);
    expectExit(await cli(cwd, ['uninstall', '-g', 'global-tool'], { CLAUDE_CONFIG_DIR: join(home, 'claude-config') }), 0);

    const outside = await cli(cwd, ['install', '-g', 'global-tool', '--agent', 'claude-code', '--json'], { CLAUDE_CONFIG_DIR: join(work, 'outside') });
    expectExit(outside, 1);
    expect(outside.json.error.message).toContain('-g installs under your home folder');
    const noFolder = await cli(cwd, ['install', '-g', 'global-tool', '--agent', 'eve', '--json']);
    expectExit(noFolder, 1);
    expect(noFolder.json.error.message).toBe('eve has no user-level skills folder');
    const withDir = await cli(cwd, ['install', '-g', 'global-tool', '--dir', 'skills', '--json']);
    expectExit(withDir, 1);
    expect(withDir.json.error.code).toBe('usage');
    expect(existsSync(join(work, 'outside'))).toBe(false);
  });

  it('refuses a user-level lockfile that names a folder no agent reads, touching nothing', async () => {
    const cwd = project();
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh/authorized_keys'), 'mine\n');
    const hostile = {
      lockfileVersion: 1,
      skills: {
        'global-tool': {
          version: '1.1.0',
          spec: 'latest',
          path: '.ssh',
          registry: base,
          integrity: 'sha256-AAAA',
          files: [],
          direct: true,
        },
      },
    };
    writeFileSync(lockfile, JSON.stringify(hostile));
    const result = await cli(cwd, ['install', '-g', '--json']);
    expectExit(result, 1);
    expect(result.json.error.code).toBe('lockfile_invalid');
    expect(readFileSync(join(home, '.ssh/authorized_keys'), 'utf8')).toBe('mine\n');
  });
});
