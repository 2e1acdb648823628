import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePeerClients, type PeerClients } from '#scripts/peer-clients';
import { skillsCommand } from '../../site/src/lib/format.ts';
import { eventually } from '../support/eventually.ts';
import { accountMadeDaysAgoIn } from '../support/site-browser.ts';
import { call, type ServerProcess, startServer, untilObservedAt } from '../support/server-process.ts';

/**
 * The clients people already install skills with, as real processes against the stack as
 * `npm start` runs it: the `skills` CLI (npm `skills` 1.7.4) through the Agent Skills discovery
 * index, and ClawHub's CLI through the ClawHub-compatible API (docs/api.md §14) at its current
 * release (npm `clawhub` 0.23.3) and under its earlier name (npm `clawdhub` 0.3.0), all on Node
 * 22, installed from the npm registry outside the project (scripts/peer-clients.ts; the suite
 * fails if they cannot be). Every install and update is checked on disk, file by file and byte
 * for byte, against what was published.
 */

type Files = Record<string, Buffer>;

const work = mkdtempSync(join(tmpdir(), 'skillpress-interop-'));
let clients: PeerClients;
let server: ServerProcess;
let base: string;
let key: string;
let cookie: string;

/** The author's analytics of an interop skill (installs are counted a few ms after the answer). */
async function installsOf(
  skill: keyof typeof slugOf,
): Promise<{ total: number; bySource: Record<string, number>; byClient: Record<string, number>; distinct: { total: number } }> {
  const res = await call(base, `/api/analytics/${ids[skill]}`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return res.body;
}

const text = (value: string) => Buffer.from(value, 'utf8');
const skillMd = (slug: string, description: string, body: string) => text(`---\nname: ${slug}\ndescription: ${description}\n---\n# ${slug}\n\n${body}\n`);
const LOGO = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0xff, 0xfe, 0x7f]);

/** What each version holds: a skill of several files (one binary), and a skill that is its SKILL.md alone. */
const published = {
  multi: {
    '1.0.0': {
      'SKILL.md': skillMd('interop-multi', 'Formats interop tables', 'Run scripts/run.sh.'),
      'scripts/run.sh': text('#!/bin/sh\necho one\n'),
      'assets/logo.png': LOGO,
    },
    '1.1.0': {
      'SKILL.md': skillMd('interop-multi', 'Formats interop tables', 'Run scripts/run.sh; see references/api.md.'),
      'scripts/run.sh': text('#!/bin/sh\necho two\n'),
      'references/api.md': text('# API\n\nThe second version.\n'),
    },
  },
  single: {
    '1.0.0': { 'SKILL.md': skillMd('interop-single', 'Checks interop spelling', 'Version one.') },
    '1.1.0': { 'SKILL.md': skillMd('interop-single', 'Checks interop spelling', 'Version two, longer.') },
  },
} satisfies Record<string, Record<string, Files>>;

const slugOf = { multi: 'interop-multi', single: 'interop-single' } as const;
const ids: Record<string, string> = {};

const asWire = (files: Files) =>
  Object.entries(files).map(([filename, bytes]) =>
    filename.endsWith('.png') ? { filename, content: bytes.toString('base64'), encoding: 'base64' } : { filename, content: bytes.toString('utf8') },
  );

async function publishThroughOurApi(skill: keyof typeof published, version: '1.0.0' | '1.1.0', paid = false): Promise<void> {
  const auth = { authorization: `Bearer ${key}` };
  const files = asWire(published[skill][version]);
  const res =
    version === '1.0.0'
      ? await call(base, '/api/publish', {
          method: 'POST',
          headers: auth,
          body: { name: slugOf[skill], slug: slugOf[skill], description: `The ${slugOf[skill]} skill`, category: 'testing', paid, files },
        })
      : await call(base, `/api/skills/${ids[skill]}/versions`, { method: 'POST', headers: auth, body: { version, changelog: `Changes in ${version}`, files } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  if (version === '1.0.0') ids[skill] = res.body.id;
  // A version with a script is run in the sandbox before the clients are given it (docs/api.md §7.4).
  expect(await untilObservedAt(base, key, ids[skill]!, version)).toBe('cleared');
}

/** Waits until alice's `slug@version`, published by a client, has been run in the sandbox and cleared (docs/api.md §7.4). */
async function observedAt(slug: string, version: string): Promise<void> {
  const mine = await call(base, '/api/me/skills', { headers: { cookie } });
  const id = mine.body.skills.find((s: { slug: string }) => s.slug === slug)?.id as string;
  expect(await untilObservedAt(base, key, id, version)).toBe('cleared');
}

/** Waits until the discovery index and the catalog both name `version` for every skill. */
async function rebuiltAt(version: string): Promise<void> {
  const listed = async () => {
    const [index, catalog] = await Promise.all([call(base, '/.well-known/agent-skills/index.json'), call(base, '/.well-known/skills.json')]);
    return Object.values(slugOf).every(
      (slug) =>
        index.body?.skills?.some((s: { name: string; version: string }) => s.name === slug && s.version === version) &&
        catalog.body?.skills?.some((s: { slug: string; currentVersion: string }) => s.slug === slug && s.currentVersion === version),
    );
  };
  expect(await eventually(listed, Boolean, 20_000)).toBe(true);
  // The ClawHub list reads the catalog at most once a second.
  await new Promise((resolve) => setTimeout(resolve, 1100));
}

/** Every file under `dir` (following a symlinked `dir`), by path, but those under `skip`. */
function filesIn(dir: string, skip?: string): Files {
  const found: Files = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name)
      .slice(dir.length + 1)
      .split('\\')
      .join('/');
    if (skip && (path === skip || path.startsWith(`${skip}/`))) continue;
    found[path] = readFileSync(join(entry.parentPath, entry.name));
  }
  return found;
}

/** `dir` holds exactly `files`, byte for byte. */
function expectInstalled(dir: string, files: Files, skip?: string): void {
  expect(existsSync(dir), dir).toBe(true);
  const onDisk = filesIn(dir, skip);
  expect(Object.keys(onDisk).sort(), dir).toEqual(Object.keys(files).sort());
  for (const [path, bytes] of Object.entries(files)) expect(onDisk[path]!.equals(bytes), `${dir}/${path}`).toBe(true);
}

interface Run {
  code: number | null;
  stdout: string;
  output: string;
}

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/** Runs a client's entry script on Node 22 in `cwd`, with a home of its own and no telemetry. */
function run(script: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  const home = join(work, 'home');
  mkdirSync(home, { recursive: true });
  return new Promise((resolve, reject) => {
    const child = spawn(clients.node, [script, ...args], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_CACHE_HOME: join(home, '.cache'),
        DISABLE_TELEMETRY: '1',
        DO_NOT_TRACK: '1',
        NO_COLOR: '1',
        CI: '1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let output = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      output += d;
    });
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: stdout.replace(ANSI, ''), output: output.replace(ANSI, '') });
    });
  });
}

/** `run` that must succeed, saying what the client printed when it does not. */
async function ok(script: string, args: string[], cwd: string, env?: Record<string, string>): Promise<Run> {
  const result = await run(script, args, cwd, env);
  expect(result.code, `${args.join(' ')}:\n${result.output}`).toBe(0);
  return result;
}

beforeAll(async () => {
  // Failing, not skipping, when npm cannot install them: CI must not pass without the clients.
  clients = ensurePeerClients(process.env.PEER_CLIENTS_DIR ?? join(tmpdir(), 'skillpress-peer-clients'));
  // alice is an established publisher: her flagged skill is published flagged, not held for review (docs/api.md §7.15).
  await accountMadeDaysAgoIn(join(work, 'data'), 'alice', 8);
  server = await startServer({ DATA_DIR: join(work, 'data') });
  base = server.baseUrl;
  const login = await call(base, '/api/auth/dev-login', { method: 'POST', body: { login: 'alice' }, headers: { origin: base } });
  cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  key = (await call(base, '/api/api-keys', { method: 'POST', body: { name: 'interop' }, headers: { cookie, origin: base } })).body.key;
  await publishThroughOurApi('multi', '1.0.0');
  await publishThroughOurApi('single', '1.0.0');
  await rebuiltAt('1.0.0');
});

afterAll(async () => {
  if (server) expect(await server.stop('SIGINT')).toBe(0);
  rmSync(work, { recursive: true, force: true });
});

describe('the skills CLI (npm skills 1.7.4)', () => {
  const project = join(work, 'skills-project');
  /** Where the two agents read skills: Codex the shared .agents/skills, Claude Code its own folder. */
  const agents = { codex: join(project, '.agents/skills'), 'claude-code': join(project, '.claude/skills') };

  it('lists both skills of the discovery index, the archive and the lone SKILL.md', async () => {
    mkdirSync(project, { recursive: true });
    const { output } = await ok(clients.skills, ['add', base, '--list'], project);
    expect(output).toContain('interop-multi');
    expect(output).toContain('interop-single');
    // It downloaded both to list them: a listing, not an install (docs/api.md §10.2).
    for (const skill of ['multi', 'single'] as const) expect((await installsOf(skill)).total, skill).toBe(0);
  });

  it('finds skills through our search with SKILLS_API_URL, naming sources it can add', async () => {
    const { output } = await ok(clients.skills, ['find', 'interop'], project, { SKILLS_API_URL: base });
    expect(output).toContain(`${base}/skills/interop-multi@interop-multi`);
    expect(output).toContain(`${base}/skills/interop-single@interop-single`);
  });

  it('installs both into Claude Code and Codex, byte for byte', async () => {
    await ok(
      clients.skills,
      ['add', base, '--skill', 'interop-multi', '--skill', 'interop-single', '--agent', 'claude-code', '--agent', 'codex', '--yes'],
      project,
    );
    for (const dir of Object.values(agents)) {
      expectInstalled(join(dir, 'interop-multi'), published.multi['1.0.0']);
      expectInstalled(join(dir, 'interop-single'), published.single['1.0.0']);
    }
    // `skills add <origin>` downloads every skill of the shared index before it chooses, as --list
    // does: the server cannot tell what was installed, so nothing counts (docs/api.md §10.2).
    for (const skill of ['multi', 'single'] as const) expect((await installsOf(skill)).total, skill).toBe(0);
    // Its own lock file, which ours never touches (ours is skillpress-lock.json).
    expect(JSON.parse(readFileSync(join(project, 'skills-lock.json'), 'utf8')).skills).toHaveProperty('interop-multi');
    const installed = (await ok(clients.skills, ['list'], project)).output;
    expect(installed).toContain('interop-multi');
    expect(installed).toContain('interop-single');
  });

  it("installs one skill with its page's command, which downloads and counts that skill alone", async () => {
    // The command a skill page shows, from the site's own code (test/site/browser.test.ts checks
    // that the page renders it; this stack builds no site).
    const command = skillsCommand('interop-single', base);
    expect(command).toBe(`npx skills add ${base}/skills/interop-single`);
    const [npx, skillsPackage, ...args] = command.split(' ');
    expect([npx, skillsPackage]).toEqual(['npx', 'skills']);
    const pageProject = join(work, 'skills-page-project');
    mkdirSync(pageProject, { recursive: true });
    const before = { multi: await installsOf('multi'), single: await installsOf('single') };
    await ok(clients.skills, [...args, '--agent', 'claude-code', '--yes'], pageProject);
    expectInstalled(join(pageProject, '.claude/skills/interop-single'), published.single['1.0.0']);
    expect(existsSync(join(pageProject, '.claude/skills/interop-multi'))).toBe(false);
    const after = await eventually(
      () => installsOf('single'),
      (counts) => counts.total > before.single.total,
    );
    expect(after.total - before.single.total).toBe(1);
    expect(after.byClient.skills! - before.single.byClient.skills!).toBe(1);
    expect(after.bySource.cli! - before.single.bySource.cli!).toBe(1);
    // The root index was read (the client tries the scoped one first), but no other skill was downloaded.
    expect(await installsOf('multi')).toEqual(before.multi);
  });
});

describe('clawdhub (npm clawdhub 0.3.0)', () => {
  const project = join(work, 'clawdhub-project');
  const config = join(work, 'clawdhub-config.json');
  /** The same two agents' folders, as `--dir` (clawdhub installs into one folder at a time). */
  const dirs = { 'claude-code': '.claude/skills', codex: '.agents/skills' };
  const claw = (args: string[], dir = 'skills') =>
    run(clients.clawdhub, ['--registry', base, '--workdir', project, '--dir', dir, '--no-input', ...args], project, { CLAWDHUB_CONFIG_PATH: config });
  const clawOk = async (args: string[], dir?: string) => {
    const result = await claw(args, dir);
    expect(result.code, `clawdhub ${args.join(' ')}:\n${result.output}`).toBe(0);
    return result;
  };

  it('logs in with an API key and says whose it is', async () => {
    mkdirSync(project, { recursive: true });
    expect((await clawOk(['login', '--token', key, '--no-browser'])).output).toContain('Logged in as @alice');
    expect((await clawOk(['whoami'])).output).toContain('alice');
  });

  it('searches and explores the free skills', async () => {
    const found = (await clawOk(['search', 'interop'])).stdout;
    expect(found).toMatch(/^interop-multi v1\.0\.0 {2}interop-multi {2}\(/m);
    expect(found).toMatch(/^interop-single v1\.0\.0/m);
    expect((await clawOk(['explore'])).stdout).toMatch(/^interop-single {2}v1\.0\.0 /m);
    const listed = JSON.parse((await clawOk(['explore', '--json', '--sort', 'installs'])).stdout);
    expect(listed.items.map((item: { slug: string }) => item.slug).sort()).toEqual(['interop-multi', 'interop-single']);
    expect(listed.items[0]).toMatchObject({ tags: { latest: '1.0.0' }, latestVersion: { version: '1.0.0' } });
  });

  it('installs into Claude Code and Codex, byte for byte, and finds them up to date', async () => {
    for (const dir of Object.values(dirs)) {
      await clawOk(['install', 'interop-multi'], dir);
      await clawOk(['install', 'interop-single'], dir);
      expectInstalled(join(project, dir, 'interop-multi'), published.multi['1.0.0'], '.clawdhub');
      expectInstalled(join(project, dir, 'interop-single'), published.single['1.0.0'], '.clawdhub');
      // Resolve names the version by the folder's fingerprint: nothing to do.
      expect((await clawOk(['update', '--all'], dir)).output).toContain('interop-multi: up to date (1.0.0)');
    }
    // Two installs of each (one per folder) by ClawHub's client, beside the skills CLI's one of
    // interop-single from its page's command; checking for updates (resolve) counts none.
    expect(await installsOf('multi')).toMatchObject({ total: 2, bySource: { cli: 2 }, byClient: { skills: 0, clawhub: 2 }, distinct: { total: 1 } });
    expect(await installsOf('single')).toMatchObject({ total: 3, bySource: { cli: 3 }, byClient: { skills: 1, clawhub: 2 } });
    expect((await clawOk(['list'])).stdout).toContain('interop-multi  1.0.0');
  });

  it('never installs a paid skill: the registry answers 402 payment_required', async () => {
    const paid = await call(base, '/api/publish', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: {
        name: 'Interop Paid',
        slug: 'interop-paid',
        description: 'Costs money',
        category: 'testing',
        paid: true,
        files: [{ filename: 'SKILL.md', content: skillMd('interop-paid', 'Costs money', 'The secret recipe.').toString() }],
      },
    });
    expect(paid.status).toBe(201);
    const refused = await claw(['install', 'interop-paid']);
    expect(refused.code).not.toBe(0);
    // Errors come as ClawHub's registry words them: a line of text, printed as it comes.
    expect(refused.output).toContain('This skill is paid');
    expect(refused.output).not.toContain('{"error"');
    expect(refused.output).not.toContain('secret recipe');
  });
});

describe('a new version published through our API', () => {
  it('reaches both clients on update, byte for byte', async () => {
    await publishThroughOurApi('multi', '1.1.0');
    await publishThroughOurApi('single', '1.1.0');
    await rebuiltAt('1.1.0');

    const skillsProject = join(work, 'skills-project');
    const before = { multi: await installsOf('multi'), single: await installsOf('single') };
    await ok(clients.skills, ['update', '--project', '--yes'], skillsProject);
    // Its update check (X-Skills-Update-Check) counts nothing, and neither does the update of skills
    // added from the shared index: it runs skills add <origin> again, which downloads every skill.
    expect((await installsOf('multi')).byClient.skills).toBe(before.multi.byClient.skills);
    // A skill added from its page's command updates through its own index: one install, of it alone.
    const pageProject = join(work, 'skills-page-project');
    await ok(clients.skills, ['update', '--project', '--yes'], pageProject);
    expectInstalled(join(pageProject, '.claude/skills/interop-single'), published.single['1.1.0']);
    const single = await eventually(
      () => installsOf('single'),
      (counts) => counts.byClient.skills! > before.single.byClient.skills!,
    );
    expect(single.byClient.skills! - before.single.byClient.skills!).toBe(1);
    expect(await installsOf('multi')).toEqual(before.multi);
    for (const dir of ['.agents/skills', '.claude/skills']) {
      expectInstalled(join(skillsProject, dir, 'interop-multi'), published.multi['1.1.0']);
      expectInstalled(join(skillsProject, dir, 'interop-single'), published.single['1.1.0']);
    }
    expect(lstatSync(join(skillsProject, '.claude/skills/interop-multi')).isSymbolicLink()).toBe(true);

    const clawProject = join(work, 'clawdhub-project');
    for (const dir of ['.claude/skills', '.agents/skills']) {
      const updated = await run(clients.clawdhub, ['--registry', base, '--workdir', clawProject, '--dir', dir, '--no-input', 'update', '--all'], clawProject, {
        CLAWDHUB_CONFIG_PATH: join(work, 'clawdhub-config.json'),
      });
      expect(updated.code, updated.output).toBe(0);
      expect(updated.output).toContain('interop-multi: updated -> 1.1.0');
      expectInstalled(join(clawProject, dir, 'interop-multi'), published.multi['1.1.0'], '.clawdhub');
      expectInstalled(join(clawProject, dir, 'interop-single'), published.single['1.1.0'], '.clawdhub');
    }
  });
});

describe('publishing with clawdhub', () => {
  const project = join(work, 'clawdhub-project');
  const folder = join(project, 'authoring/interop-claw');
  const claw = (args: string[], dir = 'skills') =>
    run(clients.clawdhub, ['--registry', base, '--workdir', project, '--dir', dir, '--no-input', ...args], project, {
      CLAWDHUB_CONFIG_PATH: join(work, 'clawdhub-config.json'),
    });
  const write = (files: Files) => {
    rmSync(folder, { recursive: true, force: true });
    for (const [path, bytes] of Object.entries(files)) {
      mkdirSync(dirname(join(folder, path)), { recursive: true });
      writeFileSync(join(folder, path), bytes);
    }
  };
  const first: Files = {
    'SKILL.md': text('---\nname: interop-claw\ndescription: Written with clawdhub\nmetadata:\n  category: Claw Tools\n---\n# Claw\n'),
    'scripts/go.sh': text('#!/bin/sh\necho claw one\n'),
  };
  const second: Files = { ...first, 'scripts/go.sh': text('#!/bin/sh\necho claw two\n'), 'references/notes.md': text('Notes\n') };

  /** What our own API delivers of the skill, as files. */
  async function delivered(slug: string, version: string): Promise<Files> {
    const catalog = await eventually(
      () => call(base, `/api/registry/${slug}`),
      (r) => r.status === 200,
      20_000,
    );
    const res = await call(base, `/api/deliver/${catalog.body.id}?version=${version}`);
    expect(res.status).toBe(200);
    return Object.fromEntries(
      res.body.files.map((f: { filename: string; content: string; encoding?: string }) => [
        f.filename,
        Buffer.from(f.content, f.encoding === 'base64' ? 'base64' : 'utf8'),
      ]),
    );
  }

  it('publishes a new skill and then a new version of it, which our API delivers byte for byte', async () => {
    write(first);
    const created = await claw(['publish', folder, '--version', '0.1.0', '--changelog', 'First from clawdhub']);
    expect(created.code, created.output).toBe(0);
    expect(created.output).toContain('Published interop-claw@0.1.0');
    expect(await delivered('interop-claw', '0.1.0')).toEqual(first);
    const registry = await eventually(
      () => call(base, '/api/registry/interop-claw'),
      (r) => r.body?.category === 'claw-tools',
    );
    expect(registry.body).toMatchObject({ description: 'Written with clawdhub', author: 'alice', currentVersion: '0.1.0' });

    write(second);
    const versioned = await claw(['publish', folder, '--version', '0.2.0', '--changelog', 'Second from clawdhub']);
    expect(versioned.code, versioned.output).toBe(0);
    expect(await delivered('interop-claw', '0.2.0')).toEqual(second);
    const again = await claw(['publish', folder, '--version', '0.2.0']);
    expect(again.code).not.toBe(0);
    expect(again.output).toContain('Version 0.2.0 is already published');
  });

  it('installs what it published, byte for byte, from the registry', async () => {
    // Its script is run in the sandbox before the registry gives it by default.
    await observedAt('interop-claw', '0.2.0');
    const installed = await claw(['install', 'interop-claw'], 'published');
    expect(installed.code, installed.output).toBe(0);
    expectInstalled(join(project, 'published/interop-claw'), second, '.clawdhub');
  });

  it('answers what has no counterpart here with a clear error', async () => {
    for (const args of [
      ['star', 'interop-claw', '--yes'],
      ['delete', 'interop-claw', '--yes'],
      ['explore', '--sort', 'trending'],
    ]) {
      const refused = await claw(args);
      expect(refused.code, args.join(' ')).not.toBe(0);
      expect(refused.output, args.join(' ')).toMatch(/Skillpress (has no stars|keeps every published skill|does not rank by trend)/);
    }
    expect((await call(base, '/api/registry/interop-claw')).status).toBe(200);
  });
});

describe('clawhub (npm clawhub 0.23.3, the current release)', () => {
  const project = join(work, 'clawhub-project');
  const env = { CLAWHUB_CONFIG_PATH: join(work, 'clawhub-config.json'), CLAWHUB_DISABLE_TELEMETRY: '1' };
  const claw = (args: string[], dir = 'skills') =>
    run(clients.clawhub, ['--registry', base, '--workdir', project, '--dir', dir, '--no-input', ...args], project, env);
  const clawOk = async (args: string[], dir?: string) => {
    const result = await claw(args, dir);
    expect(result.code, `clawhub ${args.join(' ')}:\n${result.output}`).toBe(0);
    return result;
  };
  const folder = (name: string) => join(project, 'authoring', name);
  const write = (name: string, files: Files) => {
    rmSync(folder(name), { recursive: true, force: true });
    for (const [path, bytes] of Object.entries(files)) {
      mkdirSync(dirname(join(folder(name), path)), { recursive: true });
      writeFileSync(join(folder(name), path), bytes);
    }
  };
  const v1: Files = {
    'SKILL.md': text('---\nname: interop-hub\ndescription: Written with clawhub\nlicense: MIT-0\nmetadata:\n  category: Hub Tools\n---\n# Hub\n'),
    'scripts/go.sh': text('#!/bin/sh\necho hub one\n'),
    'assets/logo.png': LOGO,
  };
  const v2: Files = { ...v1, 'scripts/go.sh': text('#!/bin/sh\necho hub two\n'), 'references/notes.md': text('Notes\n') };

  it('logs in with an API key and says whose it is', async () => {
    mkdirSync(project, { recursive: true });
    expect((await clawOk(['login', '--token', key, '--no-browser'])).output).toContain('Logged in as @alice');
    expect((await clawOk(['whoami'])).output).toContain('alice');
  });

  it('publishes a new skill, then a version, each file sent ahead, byte for byte', async () => {
    write('interop-hub', v1);
    const created = await clawOk(['publish', folder('interop-hub'), '--version', '1.0.0', '--changelog', 'First from clawhub']);
    expect(created.output).toContain('Published interop-hub@1.0.0');
    // Its script is run in the sandbox before the registry gives it by default.
    await observedAt('interop-hub', '1.0.0');
    const registry = await eventually(
      () => call(base, '/api/registry/interop-hub'),
      (r) => r.body?.currentVersion === '1.0.0',
      20_000,
    );
    expect(registry.body).toMatchObject({ description: 'Written with clawhub', author: 'alice', currentVersion: '1.0.0', category: 'hub-tools' });
    // Unchanged files publish nothing: resolve names the version by the folder's fingerprint (binary files included).
    expect((await clawOk(['publish', folder('interop-hub')])).output).toContain('interop-hub@1.0.0 is already published');
    write('interop-hub', v2);
    expect((await clawOk(['publish', folder('interop-hub'), '--version', '1.1.0', '--changelog', 'Second from clawhub'])).output).toContain(
      'Published interop-hub@1.1.0',
    );
    await observedAt('interop-hub', '1.1.0');
    const again = await claw(['publish', folder('interop-hub'), '--version', '1.1.0']);
    expect(again.code).not.toBe(0);
    expect(again.output).toContain('Version 1.1.0 is already published');
    expect(again.output).not.toContain('{"error"');
  });

  it('syncs a folder of skills: publishes what is new, leaves what is published', async () => {
    write('interop-sync', { 'SKILL.md': text('---\nname: interop-sync\ndescription: Published by clawhub sync\n---\n# Sync\n') });
    const synced = await clawOk(['sync', '--root', join(project, 'authoring'), '--all']);
    expect(synced.output).toContain('Published interop-sync@1.0.0');
    expect(synced.output).toMatch(/interop-hub\s+synced \(1\.1\.0\)/);
  });

  it('explores newest first, searches with the author, and inspects files and versions', async () => {
    await rebuiltAt('1.1.0');
    await eventually(
      () => call(base, '/.well-known/skills.json'),
      (r) => r.body?.skills?.some((s: { slug: string }) => s.slug === 'interop-sync'),
      20_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const explored = (await clawOk(['explore'])).stdout;
    expect(explored).toMatch(/^interop-sync {2}v1\.0\.0 /m);
    expect(explored.indexOf('interop-sync')).toBeLessThan(explored.indexOf('interop-multi'));
    expect((await clawOk(['search', 'clawhub'])).stdout).toMatch(/^interop-hub v1\.1\.0 +@alice +Interop Hub/m);
    const inspected = (await clawOk(['inspect', 'interop-hub', '--files', '--versions'])).stdout;
    expect(inspected).toContain('Owner    @alice');
    expect(inspected).toContain('License  MIT-0');
    expect(inspected).toMatch(/^1\.1\.0 {2}.* {2}Second from clawhub$/m);
    expect(inspected).toMatch(/^1\.0\.0 {2}.* {2}First from clawhub$/m);
    expect(inspected).toMatch(/^assets\/logo\.png {2}13B {2}[0-9a-f]{64} {2}image\/png$/m);
    const json = JSON.parse((await clawOk(['inspect', 'interop-hub', '--version', '1.0.0', '--json'])).stdout);
    expect(json.version).toMatchObject({ version: '1.0.0', license: 'MIT-0', declaredLicense: 'MIT-0' });
    const missing = await claw(['inspect', 'no-such-skill']);
    expect(missing.code).not.toBe(0);
    expect(missing.output).toContain('Skill not found');
  });

  it('installs a pinned version byte for byte, updates it, and finds it up to date, each download counted under clawhub', async () => {
    const id = (await call(base, '/api/registry/interop-hub')).body.id as string;
    const installs = async () => {
      const res = await call(base, `/api/analytics/${id}`, { headers: { cookie } });
      expect(res.status).toBe(200);
      return res.body as { total: number; bySource: Record<string, number>; byClient: Record<string, number> };
    };
    const before = await installs();
    await clawOk(['install', 'interop-hub', '--version', '1.0.0'], 'pinned');
    expectInstalled(join(project, 'pinned/interop-hub'), v1, '.clawhub');
    const updated = await clawOk(['update', 'interop-hub'], 'pinned');
    expect(updated.output).toContain('1.1.0');
    expectInstalled(join(project, 'pinned/interop-hub'), v2, '.clawhub');
    expect((await clawOk(['update', '--all'], 'pinned')).output).toContain('up to date');
    // The install and the update downloaded once each; the up-to-date check (resolve) counts nothing.
    const after = await installs();
    expect(after.total - before.total).toBe(2);
    expect(after.byClient.clawhub! - before.byClient.clawhub!).toBe(2);
    expect(after.byClient.skills).toBe(before.byClient.skills);
    expect(after.bySource.cli! - before.bySource.cli!).toBe(2);
    const refused = await claw(['install', 'interop-hub', '--version', '9.9.9'], 'other');
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('Version not found');
  });

  it('warns of a skill whose run in our sandbox marks it suspicious and installs it only with --force, counting only that install', async () => {
    // Its text reads clean; run, it writes a shell's start-up file (what runs in every new shell).
    // A download piped into a shell would not do: the sandbox runs what it downloads, and refuses it.
    const flagged: Files = {
      'SKILL.md': skillMd('interop-flagged', 'Installs interop tools', '```sh\necho \'export PATH="$HOME/.interop/bin:$PATH"\' >> ~/.bashrc\n```'),
    };
    const res = await call(base, '/api/publish', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: { name: 'interop-flagged', slug: 'interop-flagged', description: 'Installs interop tools', category: 'testing', files: asWire(flagged) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.scan.verdict).toBe('clean');
    // Its shell block is run in the sandbox before ClawHub's client is given it: cleared, and flagged.
    expect(await untilObservedAt(base, key, res.body.id, '1.0.0')).toBe('cleared');
    const installs = async () => (await call(base, `/api/analytics/${res.body.id}`, { headers: { cookie } })).body.total as number;
    const refused = await claw(['install', 'interop-flagged'], 'flagged');
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('"interop-flagged" is flagged for ClawHub security review');
    expect(refused.output).toContain('Use --force to install suspicious skills');
    expect(existsSync(join(project, 'flagged/interop-flagged'))).toBe(false);
    expect(await installs()).toBe(0);
    await clawOk(['install', 'interop-flagged', '--force'], 'flagged');
    expectInstalled(join(project, 'flagged/interop-flagged'), flagged, '.clawhub');
    expect(await eventually(installs, (total) => total > 0)).toBe(1);
    // inspect shows the verdict and the rule of the run that flagged it.
    const inspected = (await clawOk(['inspect', 'interop-flagged'])).stdout;
    expect(inspected).toMatch(/Moderate +SUSPICIOUS$/m);
    expect(inspected).toMatch(/Reasons +persistence$/m);
  });
});
