import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sha256Hex } from '#core/bundle';
import { slugify } from '#core/slug';
import { OBSERVED_WITHIN_MS } from '../support/behaviour.ts';
import { closedPort, type CliResult, runCli, startTamperProxy } from '../support/cli-process.ts';
import { call, type ServerProcess, startServer } from '../support/server-process.ts';
import { skillFile } from '../support/skill-md.ts';

/**
 * The `skillpress` client as people run it: a child process against the local runtime started as
 * `npm start` starts it, with HOME and the XDG folders in a temporary directory.
 */

// Each test launches several processes; on a busy two-core machine that can take a while.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const work = mkdtempSync(join(tmpdir(), 'skillpress-cli-'));
const env = {
  HOME: join(work, 'home'),
  XDG_CONFIG_HOME: join(work, 'config'),
  XDG_CACHE_HOME: join(work, 'cache'),
};
let server: ServerProcess;
let base: string;
let apiKey: string;

/** Runs the client against the test registry, in `cwd`. */
const cli = (cwd: string, ...args: string[]) => runCli([...args, '--registry', base], { cwd, env });

function project(name: string): string {
  const dir = join(work, 'projects', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Writes a skill folder from a map of relative paths to contents. */
function folder(name: string, files: Record<string, string | Buffer>): string {
  const dir = join(work, 'folders', name);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

/** A SKILL.md whose front matter names the slug made from `name`; the body's heading is the display name. */
const skillMd = (name: string, extra = '') => `---\nname: ${slugify(name)}\ndescription: The ${name} skill for tests.\n${extra}---\n# ${name}\n`;

type SentFile = { filename: string; content: string };
/** What the API accepts: a bare SKILL.md gets front matter naming `slug`, and a version without one gets one. */
const conforming = (slug: string, files: SentFile[] = []): SentFile[] =>
  files.some((f) => f.filename === 'SKILL.md')
    ? files.map((f) => (f.filename === 'SKILL.md' && !f.content.startsWith('---') ? skillFile(slug, f.content, 'A test skill.') : f))
    : [skillFile(slug, '', 'A test skill.'), ...files];

/**
 * Polls the full registry document until `ready` holds: rebuilds land a few milliseconds after a
 * write, and a version with something to run is the default once its run in the sandbox cleared
 * it (a new skill's document is the short `status: "pending"` shape until then).
 */
async function registry(slug: string, ready: (doc: any) => boolean = (doc) => doc !== undefined): Promise<any> {
  const deadline = Date.now() + OBSERVED_WITHIN_MS; // a run and a rebuild under load; the test's own timeout bounds it
  for (;;) {
    const res = await call(base, `/api/registry/${slug}`);
    const doc = res.status === 200 && res.body.status === undefined ? res.body : undefined;
    if (ready(doc) || Date.now() > deadline) return doc;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const auth = () => ({ authorization: `Bearer ${apiKey}` });

/** Sets up a skill through the API directly (faster than the CLI, which is tested elsewhere). */
async function apiPublish(
  body: Record<string, unknown> & { name: string; files?: SentFile[] },
  versions: { version: string; changelog?: string; files?: SentFile[] }[] = [],
): Promise<{ id: string; slug: string }> {
  const slug = slugify(body.name);
  const res = await call(base, '/api/publish', {
    method: 'POST',
    headers: auth(),
    body: { description: 'A test skill.', category: 'testing', ...body, ...(body.files ? { files: conforming(slug, body.files) } : {}) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  for (const v of versions) {
    const created = await call(base, `/api/skills/${res.body.id}/versions`, {
      method: 'POST',
      headers: auth(),
      body: { ...v, files: conforming(slug, v.files) },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
  const last = versions.filter((v) => !v.version.includes('-')).at(-1)?.version ?? '1.0.0';
  await registry(res.body.slug, (doc) => doc?.currentVersion === last);
  return res.body;
}

const read = (path: string) => readFileSync(path);
const list = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);
const expectExit = (result: CliResult, code: number) => expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(code);

beforeAll(async () => {
  server = await startServer({ DATA_DIR: join(work, 'data'), SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
  base = server.baseUrl;
  const login = await call(base, '/api/auth/dev-login', { method: 'POST', body: { login: 'alice' }, headers: { origin: base } });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const key = await call(base, '/api/api-keys', { method: 'POST', body: { name: 'cli tests' }, headers: { cookie, origin: base } });
  apiKey = key.body.key;
});

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('skillpress login and publish', () => {
  it('stores the API key read from stdin in the XDG config folder, readable only by the user', async () => {
    const result = await runCli(['login', '--json', '--registry', base], { cwd: work, env, input: `${apiKey}\n` });
    expectExit(result, 0);
    const path = join(env.XDG_CONFIG_HOME, 'skillpress', 'credentials.json');
    expect(result.json).toEqual({ registry: base, credentials: path, config: join(env.XDG_CONFIG_HOME, 'skillpress', 'config.json') });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(env.XDG_CONFIG_HOME, 'skillpress')).mode & 0o777).toBe(0o700);
    expect(readFileSync(path, 'utf8')).toContain(apiKey);
    expect(result.stdout).not.toContain(apiKey);
  });

  it('publishes a folder: front matter, --category, ignore rules, binary files as base64', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe]);
    const dir = folder('pretty-json', {
      'SKILL.md': skillMd('Pretty JSON'),
      'scripts/format.sh': 'jq -S .\n',
      'assets/logo.png': png,
      '.gitignore': '*.log\nsecret/\n',
      'debug.log': 'noise',
      'secret/key.txt': 'do not publish',
      'node_modules/dep/index.js': 'x',
      '.git/HEAD': 'ref',
      '.skills/other/SKILL.md': 'installed, not mine',
      '.agents/skills/other/SKILL.md': 'installed here too, not mine',
      'docs/.skillignore': 'draft.md\n',
      'docs/draft.md': 'wip',
      'docs/guide.md': 'Read me',
    });
    const result = await cli(dir, 'publish', '--category', 'Dev Tools', '--changelog', 'First release', '--json');
    expectExit(result, 0);
    expect(result.json).toMatchObject({
      dryRun: false,
      slug: 'pretty-json',
      skill: { slug: 'pretty-json', name: 'Pretty JSON', category: 'dev-tools', author: 'alice', currentVersion: '1.0.0', paid: false },
      bytes: expect.any(Number),
    });
    const published = ['.gitignore', 'SKILL.md', 'assets/logo.png', 'docs/.skillignore', 'docs/guide.md', 'scripts/format.sh'];
    expect(result.json.files.map((f: { filename: string }) => f.filename)).toEqual(published);
    expect(result.json.files.find((f: { filename: string }) => f.filename === 'assets/logo.png').encoding).toBe('base64');
    const doc = await registry('pretty-json');
    expect(doc.files.map((f: { filename: string }) => f.filename)).toEqual(published);
    expect(doc.files.find((f: { filename: string }) => f.filename === 'assets/logo.png').sha256).toBe(sha256Hex(png));
    expect(doc.versions[0].changelog).toBe('First release');
  });

  it('answers a second publish of the same slug with slug_taken and points to skillpress version', async () => {
    const result = await cli(join(work, 'folders', 'pretty-json'), 'publish', '--category', 'dev-tools');
    expectExit(result, 1);
    expect(result.stderr).toContain('slug_taken');
    expect(result.stderr).toContain('you already publish pretty-json (at 1.0.0)');
    expect(result.stderr).toContain('skillpress version patch --changelog');
    expect(result.stderr).not.toContain('/api/');
  });
});

describe('skillpress install', () => {
  const app = () => join(work, 'projects', 'app');

  it('installs the latest version, verified, into .agents/skills/<slug> with a lockfile', async () => {
    const result = await cli(project('app'), 'install', 'pretty-json', '--json');
    expectExit(result, 0);
    expect(result.json).toEqual({
      installed: [
        {
          slug: 'pretty-json',
          version: '1.0.0',
          previous: null,
          path: '.agents/skills/pretty-json',
          integrity: expect.stringMatching(/^sha256-/),
          files: 6,
          bytes: expect.any(Number),
          direct: true,
        },
      ],
      unchanged: [],
      removed: [],
      lockfile: 'skillpress-lock.json',
      // What it does when run was shown; nothing in it asks for consent.
      consent: { decision: 'not_needed', versions: [expect.objectContaining({ slug: 'pretty-json', version: '1.0.0' })] },
    });
    const source = join(work, 'folders', 'pretty-json');
    for (const file of ['SKILL.md', 'assets/logo.png', 'docs/guide.md', 'scripts/format.sh']) {
      expect(read(join(app(), '.agents/skills/pretty-json', file)).equals(read(join(source, file))), file).toBe(true);
    }
    const lock = JSON.parse(readFileSync(join(app(), 'skillpress-lock.json'), 'utf8'));
    expect(lock.skills['pretty-json']).toMatchObject({
      version: '1.0.0',
      spec: 'latest',
      direct: true,
      registry: base,
      path: '.agents/skills/pretty-json',
      integrity: result.json.installed[0].integrity,
    });
    expect(lock.skills['pretty-json'].files).toHaveLength(6);
  });

  it('reproduces the lockfile byte for byte after the install folder is deleted', async () => {
    const lockBefore = read(join(app(), 'skillpress-lock.json'));
    const logo = read(join(app(), '.agents/skills/pretty-json/assets/logo.png'));
    rmSync(join(app(), '.agents'), { recursive: true });
    const result = await cli(app(), 'install');
    expectExit(result, 0);
    expect(result.stdout).toContain('+ pretty-json@1.0.0');
    expect(read(join(app(), 'skillpress-lock.json')).equals(lockBefore)).toBe(true);
    expect(read(join(app(), '.agents/skills/pretty-json/assets/logo.png')).equals(logo)).toBe(true);
    expect(list(join(app(), '.agents/skills'))).toEqual(['pretty-json']);
  });

  it('resolves exact versions and ranges against every published version, skipping prereleases', async () => {
    const files = (v: string) => [{ filename: 'SKILL.md', content: `# ranges ${v}` }];
    await apiPublish({ name: 'Ranges', files: files('1.0.0') }, [
      { version: '1.1.0', files: files('1.1.0') },
      { version: '1.1.5', files: files('1.1.5') },
      { version: '1.2.0', files: files('1.2.0') },
      { version: '2.0.0-beta.1', files: files('2.0.0-beta.1') },
      { version: '2.0.0-beta.2', files: files('2.0.0-beta.2') },
      { version: '2.0.0-beta.3', files: files('2.0.0-beta.3') },
    ]);
    const dir = project('ranges');
    const tilde = await cli(dir, 'install', 'ranges@~1.1', '--json');
    expectExit(tilde, 0);
    expect(tilde.json.installed[0].version).toBe('1.1.5');
    expect(readFileSync(join(dir, '.agents/skills/ranges/SKILL.md'), 'utf8')).toBe(conforming('ranges', files('1.1.5'))[0]!.content);

    // 1.0.0 is no longer among the 5 newest versions of the registry document: /versions has it.
    const exact = await cli(dir, 'install', 'ranges@1.0.0', '--json');
    expect(exact.json.installed[0]).toMatchObject({ version: '1.0.0', previous: '1.1.5' });

    const caret = await cli(dir, 'install', 'ranges@^1.0.0', '--json');
    expect(caret.json.installed[0].version).toBe('1.2.0');
    expect(JSON.parse(readFileSync(join(dir, 'skillpress-lock.json'), 'utf8')).skills.ranges.spec).toBe('^1.0.0');

    const none = await cli(dir, 'install', 'ranges@^3.0.0');
    expectExit(none, 1);
    expect(none.stderr).toContain('no_matching_version');
    expect(none.stderr).toContain('2.0.0-beta.3');
  });

  it('installs declared dependencies beside the skill, and uninstall removes what nothing needs', async () => {
    await apiPublish({ name: 'Helper', files: [{ filename: 'SKILL.md', content: '# helper' }] }, [
      { version: '1.4.0', files: [{ filename: 'SKILL.md', content: '# helper 1.4' }] },
    ]);
    await apiPublish({ name: 'Needs Helper', files: [{ filename: 'SKILL.md', content: '# needs' }], dependencies: { helper: '^1.0.0' } });
    const dir = project('deps');
    // A folder skillpress did not install may be the user's own work: refused, nothing written.
    mkdirSync(join(dir, '.claude/skills/helper'), { recursive: true });
    writeFileSync(join(dir, '.claude/skills/helper/SKILL.md'), 'my own helper');
    const refused = await cli(dir, 'install', 'needs-helper', '--agent', 'claude');
    expectExit(refused, 1);
    expect(refused.stderr).toContain('folder_exists');
    expect(list(join(dir, '.claude/skills'))).toEqual(['helper']);
    expect(existsSync(join(dir, 'skillpress-lock.json'))).toBe(false);

    // claude was our id before the skills CLI's claude-code; both name the same folder.
    const result = await cli(dir, 'install', 'needs-helper', '--agent', 'claude-code', '--force', '--json');
    expectExit(result, 0);
    expect(readFileSync(join(dir, '.claude/skills/helper/SKILL.md'), 'utf8')).toBe(skillFile('helper', '# helper 1.4', 'A test skill.').content);
    expect(result.json.installed.map((s: { slug: string; version: string; direct: boolean; path: string }) => [s.slug, s.version, s.direct, s.path])).toEqual([
      ['needs-helper', '1.0.0', true, '.claude/skills/needs-helper'],
      ['helper', '1.4.0', false, '.claude/skills/helper'],
    ]);
    // Once 1.0.0 is no longer current the registry no longer lists its dependencies; asking for
    // it again must keep what the lockfile knows rather than drop helper as an orphan.
    const needs = (await registry('needs-helper')).id;
    expect(
      (
        await call(base, `/api/skills/${needs}/versions`, {
          method: 'POST',
          headers: auth(),
          body: { version: '1.1.0', files: conforming('needs-helper'), dependencies: { helper: '^1.0.0' } },
        })
      ).status,
    ).toBe(201);
    await registry('needs-helper', (doc) => doc?.currentVersion === '1.1.0');
    const again = await cli(dir, 'install', 'needs-helper@1.0.0', '--json');
    expectExit(again, 0);
    expect(again.json).toMatchObject({ installed: [], unchanged: [{ slug: 'needs-helper', version: '1.0.0' }], removed: [] });
    expect(list(join(dir, '.claude/skills'))).toEqual(['helper', 'needs-helper']);

    const removed = await cli(dir, 'uninstall', 'needs-helper', '--json');
    expectExit(removed, 0);
    expect(removed.json).toEqual({ removed: ['helper', 'needs-helper'], kept: [], lockfile: 'skillpress-lock.json' });
    expect(list(join(dir, '.claude/skills'))).toEqual([]);
    expect(JSON.parse(readFileSync(join(dir, 'skillpress-lock.json'), 'utf8')).skills).toEqual({});
  });
});

describe('beside the skills CLI', () => {
  it('installs for an agent named as the skills CLI names it, into the folder that agent reads', async () => {
    const windsurf = await cli(project('windsurf'), 'install', 'pretty-json', '--agent', 'windsurf', '--json');
    expectExit(windsurf, 0);
    expect(windsurf.json.installed[0].path).toBe('.windsurf/skills/pretty-json');
    const cursor = await cli(project('cursor'), 'install', 'pretty-json', '--agent', 'cursor', '--json');
    expect(cursor.json.installed[0].path).toBe('.agents/skills/pretty-json');

    const unknown = await cli(project('unknown-agent'), 'install', 'pretty-json', '--agent', 'vim');
    expectExit(unknown, 1);
    expect(unknown.stderr).toContain('unknown agent "vim"');
    for (const id of ['claude-code', 'codex', 'cursor', 'gemini-cli', 'github-copilot', 'opencode', 'amp', 'windsurf']) expect(unknown.stderr).toContain(id);
  });

  it('moves a skills-lock.json that an earlier skillpress wrote to skillpress-lock.json, byte for byte', async () => {
    const dir = project('legacy-lockfile');
    const ours = read(join(work, 'projects', 'app', 'skillpress-lock.json'));
    writeFileSync(join(dir, 'skills-lock.json'), ours);
    const result = await cli(dir, 'install');
    expectExit(result, 0);
    expect(result.stdout).toContain('Moved skills-lock.json (written by an earlier skillpress) to skillpress-lock.json');
    expect(read(join(dir, 'skillpress-lock.json')).equals(ours)).toBe(true);
    expect(existsSync(join(dir, 'skills-lock.json'))).toBe(false);
    expect(list(join(dir, '.agents/skills'))).toEqual(['pretty-json']);
  });

  it("never reads or writes the skills CLI's skills-lock.json, and keeps its own pins beside it", async () => {
    const dir = project('shared');
    const theirs = `${JSON.stringify({ version: 1, skills: { 'frontend-design': { source: 'vercel-labs/agent-skills', sourceType: 'github', computedHash: 'f'.repeat(64) } } }, null, 2)}\n`;
    writeFileSync(join(dir, 'skills-lock.json'), theirs);
    mkdirSync(join(dir, '.agents/skills/frontend-design'), { recursive: true });
    writeFileSync(join(dir, '.agents/skills/frontend-design/SKILL.md'), '# installed by the skills CLI');

    expectExit(await cli(dir, 'install', 'pretty-json'), 0);
    const listed = await cli(dir, 'list', '--json', '--offline');
    expect(listed.json.skills.map((s: { slug: string }) => s.slug)).toEqual(['pretty-json']);
    expectExit(await cli(dir, 'uninstall', 'pretty-json'), 0);

    expect(readFileSync(join(dir, 'skills-lock.json'), 'utf8')).toBe(theirs);
    expect(Object.keys(JSON.parse(readFileSync(join(dir, 'skillpress-lock.json'), 'utf8')).skills)).toEqual([]);
    expect(list(join(dir, '.agents/skills'))).toEqual(['frontend-design']);
  });
});

describe('integrity', () => {
  const app = () => join(work, 'projects', 'app');

  it('refuses a tampered download with exit 3, writing nothing and keeping the previous install', async () => {
    const dir = join(work, 'folders', 'pretty-json');
    writeFileSync(join(dir, 'SKILL.md'), `${skillMd('Pretty JSON', 'category: dev-tools\n')}\nNow sorts keys.\n`);
    expectExit(await cli(dir, 'version', '1.1.0', '--changelog', 'Sorts keys'), 0);
    await registry('pretty-json', (doc) => doc?.currentVersion === '1.1.0');

    const lockBefore = read(join(app(), 'skillpress-lock.json'));
    const skillBefore = read(join(app(), '.agents/skills/pretty-json/SKILL.md'));
    const proxy = await startTamperProxy(base, (delivery) => {
      delivery.files[0]!.content += ' ';
    });
    try {
      const result = await runCli(['install', 'pretty-json', '--registry', proxy.url], { cwd: app(), env });
      expectExit(result, 3);
      expect(result.stderr).toContain('integrity_mismatch');
      expect(result.stderr).toContain('pretty-json@1.1.0');
      expect(read(join(app(), 'skillpress-lock.json')).equals(lockBefore)).toBe(true);
      expect(read(join(app(), '.agents/skills/pretty-json/SKILL.md')).equals(skillBefore)).toBe(true);
      expect(list(join(app(), '.agents/skills'))).toEqual(['pretty-json']);

      // The same from the lockfile: a reproduction that gets other bytes fails and writes nothing.
      rmSync(join(app(), '.agents'), { recursive: true });
      const replay = await runCli(['install', '--registry', proxy.url, '--json'], { cwd: app(), env });
      expectExit(replay, 3);
      expect(replay.json.error.code).toBe('integrity_mismatch');
      expect(existsSync(join(app(), '.agents/skills', 'pretty-json'))).toBe(false);
    } finally {
      await proxy.close();
    }
    expectExit(await cli(app(), 'install'), 0);
  });

  it('refuses a file name that escapes the install folder, even with matching digests', async () => {
    const proxy = await startTamperProxy(base, (delivery) => {
      delivery.files[0]!.filename = '../../escaped.md';
    });
    try {
      const result = await runCli(['install', 'pretty-json@1.1.0', '--registry', proxy.url], { cwd: project('unsafe'), env });
      expectExit(result, 3);
      expect(result.stderr).toContain('unsafe_filename');
      expect(list(join(work, 'projects', 'unsafe'))).toEqual([]);
      expect(existsSync(join(work, 'projects', 'escaped.md'))).toBe(false);
    } finally {
      await proxy.close();
    }
  });
});

describe('skillpress update', () => {
  it('shows the changelogs between the installed and the newest version, then updates', async () => {
    const dir = join(work, 'folders', 'pretty-json');
    expectExit(await cli(dir, 'version', '1.2.0', '--changelog', 'Adds colours\nand a --compact flag'), 0);
    await registry('pretty-json', (doc) => doc?.currentVersion === '1.2.0');
    const app = project('updating');
    expectExit(await cli(app, 'install', 'pretty-json@1.0.0'), 0);
    // Pinned to 1.0.0: update keeps the pin and says how to move on.
    const pinned = await cli(app, 'update', '--json');
    expectExit(pinned, 0);
    expect(pinned.json).toMatchObject({ updates: [], installed: [], held: [{ slug: 'pretty-json', version: '1.0.0', spec: '1.0.0', latest: '1.2.0' }] });

    // Widen the spec by hand, as one would after reading the advice.
    const lockPath = join(app, 'skillpress-lock.json');
    writeFileSync(lockPath, readFileSync(lockPath, 'utf8').replace('"spec": "1.0.0"', '"spec": "^1.0.0"'));
    const dry = await cli(app, 'update', '--dry-run');
    expectExit(dry, 0);
    expect(dry.stdout).toContain('pretty-json 1.0.0 → 1.2.0');
    expect(dry.stdout.indexOf('Sorts keys')).toBeGreaterThan(0);
    expect(dry.stdout.indexOf('Sorts keys')).toBeLessThan(dry.stdout.indexOf('Adds colours'));
    expect(dry.stdout).toContain('and a --compact flag');
    expect(readFileSync(join(app, '.agents/skills/pretty-json/SKILL.md'), 'utf8')).not.toContain('Now sorts keys');

    const update = await cli(app, 'update', '--json');
    expectExit(update, 0);
    expect(update.json.updates).toEqual([
      {
        slug: 'pretty-json',
        from: '1.0.0',
        to: '1.2.0',
        changelogs: [
          { version: '1.1.0', changelog: 'Sorts keys', publishedAt: expect.any(String) },
          { version: '1.2.0', changelog: 'Adds colours\nand a --compact flag', publishedAt: expect.any(String) },
        ],
      },
    ]);
    expect(update.json.installed[0]).toMatchObject({ slug: 'pretty-json', version: '1.2.0', previous: '1.0.0' });
    expect(readFileSync(join(app, '.agents/skills/pretty-json/SKILL.md'), 'utf8')).toContain('Now sorts keys');
    expect(JSON.parse(readFileSync(lockPath, 'utf8')).skills['pretty-json']).toMatchObject({ version: '1.2.0', spec: '^1.0.0' });

    const again = await cli(app, 'update', '--dry-run');
    expect(again.stdout).toBe('Everything is up to date.\n');
  });
});

describe('paid skills', () => {
  it('explains payment_required without a token or an API key and installs with --token', async () => {
    const paid = await apiPublish({ name: 'Premium Prompts', paid: true, files: [{ filename: 'SKILL.md', content: '# premium' }] });
    const dir = project('paid');
    // No stored API key: nothing can ask the server for a token.
    const keyless = { ...env, XDG_CONFIG_HOME: join(work, 'no-credentials') };
    const refused = await runCli(['install', 'premium-prompts', '--registry', base], { cwd: dir, env: keyless });
    expectExit(refused, 1);
    expect(refused.stderr).toContain('payment_required');
    expect(refused.stderr).toContain(`buy it at ${base}/skills/premium-prompts/`);
    expect(refused.stderr).toContain('--token <token>');
    expect(list(dir)).toEqual([]);

    const token = await call(base, `/api/skills/${paid.id}/download-tokens`, { method: 'POST', headers: auth(), body: { maxUses: 1 } });
    expect(token.status).toBe(201);
    const installed = await cli(dir, 'install', 'premium-prompts', '--token', token.body.token, '--json');
    expectExit(installed, 0);
    expect(installed.json.installed[0]).toMatchObject({ slug: 'premium-prompts', version: '1.0.0' });
    expect(readFileSync(join(dir, '.agents/skills/premium-prompts/SKILL.md'), 'utf8')).toBe(skillFile('premium-prompts', '# premium', 'A test skill.').content);
    expect(readFileSync(join(dir, 'skillpress-lock.json'), 'utf8')).not.toContain(token.body.token);

    // The token was for one use: a used-up token is refused with the server's code.
    rmSync(join(dir, '.agents'), { recursive: true });
    const again = await cli(dir, 'install', '--token', token.body.token);
    expectExit(again, 1);
    expect(again.stderr).toContain('unauthenticated');
    expect(again.stderr).toContain('the download token was refused');

    // The author's stored API key (from skillpress login) is enough: the client asks for a token itself.
    const own = await cli(dir, 'install', '--json');
    expectExit(own, 0);
    expect(readFileSync(join(dir, '.agents/skills/premium-prompts/SKILL.md'), 'utf8')).toBe(skillFile('premium-prompts', '# premium', 'A test skill.').content);
  });
});

describe('--json shapes, list and exit codes', () => {
  it('search, info and list print stable JSON documents', async () => {
    const search = await cli(work, 'search', 'json', '--json');
    expectExit(search, 0);
    expect(search.json).toEqual({
      query: 'json',
      count: 1,
      skills: [
        expect.objectContaining({
          slug: 'pretty-json',
          currentVersion: '1.2.0',
          author: 'alice',
          registry: '/api/registry/pretty-json',
          installs: expect.any(Number),
        }),
      ],
    });

    const info = await cli(work, 'info', 'pretty-json', '--json');
    expect(info.json).toMatchObject({
      slug: 'pretty-json',
      currentVersion: '1.2.0',
      files: expect.any(Array),
      versions: [{ version: '1.2.0' }, { version: '1.1.0' }, { version: '1.0.0' }],
      dependencies: {},
      delivery: { url: expect.stringMatching(/^\/api\/deliver\//) },
    });

    const listed = await cli(join(work, 'projects', 'app'), 'list', '--json');
    expectExit(listed, 0);
    expect(listed.json).toEqual({
      skills: [
        {
          slug: 'pretty-json',
          version: '1.0.0',
          latest: '1.2.0',
          deprecated: null,
          yanked: false,
          outdated: true,
          path: '.agents/skills/pretty-json',
          direct: true,
          paid: false,
          state: 'ok',
        },
      ],
    });
  });

  it('marks outdated and locally changed skills in the human listing, without colour when NO_COLOR is set', async () => {
    const app = join(work, 'projects', 'app');
    writeFileSync(join(app, '.agents/skills/pretty-json/SKILL.md'), 'edited by hand');
    const result = await runCli(['list', '--registry', base], { cwd: app, env: { ...env, NO_COLOR: '1', FORCE_COLOR: '1' } });
    expectExit(result, 0);
    expect(result.stdout).toMatch(/pretty-json\s+1\.0\.0\s+1\.2\.0 available\s+\.agents\/skills\/pretty-json\s+modified/);
    expect(result.stdout).not.toContain('\u001b[');
    const coloured = await runCli(['list', '--registry', base], { cwd: app, env: { ...env, FORCE_COLOR: '1' } });
    expect(coloured.stdout).toContain('\u001b[');
  });

  it('exits 1 for user errors and 2 when the registry cannot be reached, with the code in JSON', async () => {
    const missing = await cli(work, 'info', 'no-such-skill', '--json');
    expectExit(missing, 1);
    expect(missing.json).toEqual({ error: { code: 'not_found', message: expect.stringContaining('no-such-skill'), hint: expect.any(String) } });

    const badArgs = await cli(work, 'install', 'Not A Slug');
    expectExit(badArgs, 1);
    expect(badArgs.stderr).toContain('error usage:');

    const down = await runCli(['search', 'x', '--json', '--registry', `http://127.0.0.1:${await closedPort()}`], { cwd: work, env });
    expectExit(down, 2);
    expect(down.json.error.code).toBe('network_error');
  });

  it('documents the commands and exit codes in --help', async () => {
    const help = await runCli(['--help'], { cwd: work, env });
    expectExit(help, 0);
    for (const command of ['search', 'info', 'install', 'update', 'uninstall', 'list', 'login', 'publish', 'version'])
      expect(help.stdout).toContain(`  ${command}`);
    expect(help.stdout).toMatch(/3 {2}integrity failure/);
  });
});
