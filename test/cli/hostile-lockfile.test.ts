import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../support/cli-in-process.ts';
import { type FakeRegistry, skillRoutes, startFakeRegistry } from '../support/fake-registry.ts';

/**
 * A committed `skillpress-lock.json` is read by whoever clones the project: its paths may name
 * only `<agent skills folder or --dir root>/<slug>`, never anything inside `.git`; a root it lists
 * in `dirs` is used only when the user names it with --dir; and the CLI never replaces or removes
 * a folder whose files are not exactly, by digest, those it installed.
 */

const work = mkdtempSync(join(tmpdir(), 'skillpress-hostile-lock-'));
const env = { HOME: join(work, 'home'), XDG_CACHE_HOME: join(work, 'cache'), XDG_CONFIG_HOME: join(work, 'config') };
let registry: FakeRegistry;

beforeAll(async () => {
  registry = await startFakeRegistry(
    skillRoutes([
      {
        slug: 'helper',
        files: [
          { filename: 'SKILL.md', content: '# helper\n' },
          { filename: 'pre-commit', content: 'touch pwned\n' },
        ],
      },
    ]),
  );
});
afterAll(async () => {
  await registry?.close();
  rmSync(work, { recursive: true, force: true });
});

let projects = 0;
/** A project with some work of its own: source, a git folder with a hook, and helper installed. */
async function project(): Promise<string> {
  const dir = join(work, `project-${++projects}`);
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, '.git', 'hooks'), { recursive: true });
  writeFileSync(join(dir, 'src', 'main.ts'), 'export {};\n');
  writeFileSync(join(dir, '.git', 'hooks', 'pre-push.sample'), '#!/bin/sh\n');
  const installed = await cli(dir, 'install', 'helper', '--json');
  expect(installed.code, installed.stderr).toBe(0);
  return dir;
}

const cli = (cwd: string, ...args: string[]) => runInProcess([...args, '--registry', registry.url], { cwd, env });
const lockPath = (dir: string) => join(dir, 'skillpress-lock.json');

/** A project whose own `src/helper/index.ts` a lockfile claims through a `dirs` root, listing `sha256` for it. */
async function claimedSource(sha256: string): Promise<string> {
  const dir = await project();
  mkdirSync(join(dir, 'src', 'helper'));
  writeFileSync(join(dir, 'src', 'helper', 'index.ts'), 'mine\n');
  tamper(dir, (lock) => {
    lock.dirs = ['src'];
    lock.skills.helper.path = 'src/helper';
    lock.skills.helper.files = [{ filename: 'index.ts', sha256, size: 5 }];
  });
  return dir;
}

/** Rewrites the lockfile as an attacker's commit would. */
function tamper(dir: string, edit: (lock: any) => void): void {
  const lock = JSON.parse(readFileSync(lockPath(dir), 'utf8'));
  edit(lock);
  writeFileSync(lockPath(dir), JSON.stringify(lock));
}

describe('a hostile skillpress-lock.json', () => {
  it.each([
    ['.git/hooks', '.git/hooks/pre-push.sample'],
    ['.git/hooks/helper', '.git/hooks/pre-push.sample'],
    ['src', 'src/main.ts'],
    ['src/helper', 'src/main.ts'],
    ['.agents/skills/other', 'src/main.ts'],
  ])('refuses the path %s before touching anything (lockfile_invalid)', async (path, kept) => {
    const dir = await project();
    tamper(dir, (lock) => (lock.skills.helper.path = path));
    for (const args of [['install'], ['update'], ['uninstall', 'helper']]) {
      const result = await cli(dir, ...args, '--json');
      expect(result.code, result.stdout).toBe(1);
      expect(result.json.error.code).toBe('lockfile_invalid');
    }
    expect(existsSync(join(dir, kept))).toBe(true);
    expect(existsSync(join(dir, '.git/hooks/pre-commit'))).toBe(false);
  });

  it('refuses a "dirs" root inside .git, in any case', async () => {
    const dir = await project();
    tamper(dir, (lock) => {
      lock.dirs = ['.GIT/hooks'];
      lock.skills.helper.path = '.GIT/hooks/helper';
    });
    const result = await cli(dir, 'install', '--json');
    expect(result.json.error.code).toBe('lockfile_invalid');
    expect(result.json.error.message).toContain('.git');
  });

  it('does not trust a "dirs" root the lockfile names: install, update and uninstall refuse it unless --dir names it', async () => {
    // The attacker knows the committed file, so the lockfile claims it with its true digest.
    const dir = await claimedSource(createHash('sha256').update('mine\n').digest('hex'));
    for (const args of [['install'], ['update'], ['uninstall', 'helper'], ['install', 'helper']]) {
      const result = await cli(dir, ...args, '--json');
      expect(result.code, `${args.join(' ')}: ${result.stdout}`).toBe(1);
      expect(result.json.error.code).toBe('untrusted_dir');
      expect(result.json.error.message).toContain('src');
    }
    expect(readFileSync(join(dir, 'src', 'helper', 'index.ts'), 'utf8')).toBe('mine\n');
    expect(existsSync(join(dir, 'src', 'main.ts'))).toBe(true);
  });

  it('replaces a folder only when its files match the lockfile by digest, not by name, even in a root --dir confirms', async () => {
    const dir = await claimedSource('a'.repeat(64));
    for (const args of [
      ['install', '--dir', 'src'],
      ['uninstall', 'helper', '--dir', 'src'],
    ]) {
      const result = await cli(dir, ...args, '--json');
      expect(readFileSync(join(dir, 'src', 'helper', 'index.ts'), 'utf8'), args.join(' ')).toBe('mine\n');
      if (args[0] === 'install') {
        expect(result.json.error.code).toBe('folder_exists');
        expect(result.json.error.message).toContain('index.ts');
      } else {
        expect(result.stderr).toContain('left src/helper in place: it holds index.ts');
      }
    }
  });

  it('keeps a file the user added to an installed folder: reinstalling refuses, uninstalling leaves the folder', async () => {
    const dir = await project();
    const folder = join(dir, '.agents/skills/helper');
    writeFileSync(join(folder, 'my-notes.md'), 'mine\n');
    const reinstall = await cli(dir, 'install', '--json');
    expect(reinstall.json.error.code).toBe('folder_exists');
    expect(readFileSync(join(folder, 'my-notes.md'), 'utf8')).toBe('mine\n');

    const removed = await cli(dir, 'uninstall', 'helper');
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toContain('left .agents/skills/helper in place: it holds my-notes.md');
    expect(readFileSync(join(folder, 'my-notes.md'), 'utf8')).toBe('mine\n');
  });

  it('keeps an installed file the user edited: reinstalling refuses until --force, uninstalling leaves it', async () => {
    const dir = await project();
    writeFileSync(join(dir, '.agents/skills/helper/SKILL.md'), 'edited\n');
    const refused = await cli(dir, 'install', '--json');
    expect(refused.code, refused.stdout).toBe(1);
    expect(refused.json.error.code).toBe('folder_exists');
    expect(refused.json.error.message).toContain('SKILL.md');
    expect(readFileSync(join(dir, '.agents/skills/helper/SKILL.md'), 'utf8')).toBe('edited\n');

    const forced = await cli(dir, 'install', '--force', '--json');
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(dir, '.agents/skills/helper/SKILL.md'), 'utf8')).toBe('# helper\n');
  });

  it('refuses an agent folder that a committed link sends into .git or out of the project', async () => {
    for (const target of ['../.git/hooks', '../../outside']) {
      const dir = join(work, `linked-${++projects}`);
      mkdirSync(join(dir, '.git', 'hooks'), { recursive: true });
      mkdirSync(join(dir, '.claude'), { recursive: true });
      mkdirSync(join(work, 'outside'), { recursive: true });
      symlinkSync(target, join(dir, '.claude', 'skills'));
      const result = await cli(dir, 'install', 'helper', '--agent', 'claude-code', '--json');
      expect(result.code, result.stdout).toBe(3);
      expect(result.json.error.code).toBe('unsafe_path');
      expect(existsSync(join(dir, '.git/hooks/helper'))).toBe(false);
      expect(existsSync(join(work, 'outside', 'helper'))).toBe(false);
    }
  });

  it('refuses --dir inside .git', async () => {
    const dir = await project();
    const result = await cli(dir, 'install', 'helper', '--dir', '.git/hooks', '--json');
    expect(result.json.error.code).toBe('usage');
    expect(existsSync(join(dir, '.git/hooks/helper'))).toBe(false);
  });

  it('records a --dir root, so the lockfile installs there again', async () => {
    const dir = join(work, `dir-${++projects}`);
    mkdirSync(dir);
    expect((await cli(dir, 'install', 'helper', '--dir', 'vendor/skills')).code).toBe(0);
    const lock = JSON.parse(readFileSync(lockPath(dir), 'utf8'));
    expect(lock.dirs).toEqual(['vendor/skills']);
    expect(lock.skills.helper.path).toBe('vendor/skills/helper');
    rmSync(join(dir, 'vendor'), { recursive: true });
    // Whoever runs the lockfile confirms the root it names, as the user who chose it did.
    expect((await cli(dir, 'install', '--json')).json.error.code).toBe('untrusted_dir');
    const again = await cli(dir, 'install', '--dir', 'vendor/skills', '--json');
    expect(again.code, again.stdout).toBe(0);
    expect(readFileSync(join(dir, 'vendor/skills/helper/SKILL.md'), 'utf8')).toBe('# helper\n');
    // Once the last skill there is gone, the root is forgotten.
    expect((await cli(dir, 'uninstall', 'helper', '--dir', 'vendor/skills')).code).toBe(0);
    expect(JSON.parse(readFileSync(lockPath(dir), 'utf8')).dirs).toBeUndefined();
  });
});
