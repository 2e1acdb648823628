import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../support/cli-in-process.ts';
import { type FakeRegistry, skillRoutes, startFakeRegistry } from '../support/fake-registry.ts';

/** Several agents in one install: the skill once in .agents/skills, linked into the others' folders. */

const work = mkdtempSync(join(tmpdir(), 'skillpress-agent-links-'));
const env = { HOME: join(work, 'home'), XDG_CACHE_HOME: join(work, 'cache'), XDG_CONFIG_HOME: join(work, 'config') };
let registry: FakeRegistry;

beforeAll(async () => {
  registry = await startFakeRegistry(skillRoutes([{ slug: 'app', dependencies: { helper: '*' } }, { slug: 'helper' }]));
});
afterAll(async () => {
  await registry?.close();
  rmSync(work, { recursive: true, force: true });
});

let projects = 0;
const project = () => {
  const dir = join(work, `project-${++projects}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};
const cli = (cwd: string, ...args: string[]) => runInProcess([...args, '--registry', registry.url], { cwd, env });
const lock = (dir: string) => JSON.parse(readFileSync(join(dir, 'skillpress-lock.json'), 'utf8'));

describe('--agent for several agents', () => {
  it('installs once in .agents/skills and links it, and its dependencies, into the other agents’ folders', async () => {
    const dir = project();
    const result = await cli(dir, 'install', 'app', '--agent', 'claude-code', '--agent', 'codex', '--agent', 'windsurf', '--json');
    expect(result.code, result.stdout).toBe(0);
    for (const slug of ['app', 'helper']) {
      expect(lstatSync(join(dir, '.agents/skills', slug)).isDirectory()).toBe(true);
      for (const folder of ['.claude/skills', '.windsurf/skills']) {
        expect(lstatSync(join(dir, folder, slug)).isSymbolicLink()).toBe(true);
        expect(readlinkSync(join(dir, folder, slug))).toBe(`../../.agents/skills/${slug}`);
        expect(readFileSync(join(dir, folder, slug, 'SKILL.md'), 'utf8')).toBe(`# ${slug}\n`);
      }
      expect(lock(dir).skills[slug]).toMatchObject({ path: `.agents/skills/${slug}`, links: [`.claude/skills/${slug}`, `.windsurf/skills/${slug}`] });
    }
  });

  it('takes a comma list, puts the links back from the lockfile, and removes them on uninstall', async () => {
    const dir = project();
    expect((await cli(dir, 'install', 'helper', '--agent', 'claude-code,cursor')).code).toBe(0);
    expect(lstatSync(join(dir, '.claude/skills/helper')).isSymbolicLink()).toBe(true);
    rmSync(join(dir, '.claude'), { recursive: true });
    expect((await cli(dir, 'install')).code).toBe(0);
    expect(lstatSync(join(dir, '.claude/skills/helper')).isSymbolicLink()).toBe(true);
    expect((await cli(dir, 'uninstall', 'helper')).code).toBe(0);
    expect(existsSync(join(dir, '.claude/skills/helper'))).toBe(false);
    expect(existsSync(join(dir, '.agents/skills/helper'))).toBe(false);
  });

  it('keeps a single agent in its own folder, and turns a skill installed there into a link when more agents are named', async () => {
    const dir = project();
    expect((await cli(dir, 'install', 'helper', '--agent', 'claude-code')).code).toBe(0);
    expect(lstatSync(join(dir, '.claude/skills/helper')).isDirectory()).toBe(true);
    const both = await cli(dir, 'install', 'helper', '--agent', 'claude-code', '--agent', 'codex');
    expect(both.code, both.stderr).toBe(0);
    expect(both.stderr).not.toContain('left');
    expect(lstatSync(join(dir, '.claude/skills/helper')).isSymbolicLink()).toBe(true);
    expect(lock(dir).skills.helper).toMatchObject({ path: '.agents/skills/helper', links: ['.claude/skills/helper'] });
  });

  it('never replaces a folder of the user’s own with a link, and refuses unknown agents with a suggestion', async () => {
    const dir = project();
    mkdirSync(join(dir, '.claude/skills/helper'), { recursive: true });
    writeFileSync(join(dir, '.claude/skills/helper/mine.md'), 'mine\n');
    const refused = await cli(dir, 'install', 'helper', '--agent', 'claude-code,codex', '--json');
    expect(refused.json.error.code).toBe('folder_exists');
    expect(readFileSync(join(dir, '.claude/skills/helper/mine.md'), 'utf8')).toBe('mine\n');
    expect(existsSync(join(dir, '.agents/skills/helper'))).toBe(false);
    const typo = await cli(dir, 'install', 'helper', '--agent', 'claude-cod', '--json');
    expect(typo.json.error.message).toBe('unknown agent "claude-cod": did you mean "claude-code"?');
  });

  it('refuses a lockfile whose links point anywhere but an agent folder', async () => {
    const dir = project();
    expect((await cli(dir, 'install', 'helper', '--agent', 'claude-code,codex')).code).toBe(0);
    const text = readFileSync(join(dir, 'skillpress-lock.json'), 'utf8');
    for (const link of ['.git/hooks/helper', 'src/helper', '.agents/skills/helper', '.claude/skills/other']) {
      writeFileSync(join(dir, 'skillpress-lock.json'), text.replace('".claude/skills/helper"', JSON.stringify(link)));
      const result = await cli(dir, 'install', '--json');
      expect(result.json.error.code, link).toBe('lockfile_invalid');
    }
  });
});
