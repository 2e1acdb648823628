import { describe, expect, it } from 'vitest';
import { emptyLockfile, type LockedSkill, type Lockfile, parseLockfile, pruneOrphans, serialiseLockfile, writtenBySkillpress } from '#cli/lockfile';

const entry = (overrides: Partial<LockedSkill> = {}): LockedSkill => ({
  version: '1.0.0',
  integrity: `sha256-${'A'.repeat(43)}=`,
  files: [
    { filename: 'SKILL.md', size: 3, sha256: 'a'.repeat(64) },
    { filename: 'NOTES.md', size: 1, sha256: 'b'.repeat(64) },
  ],
  id: 'id-1',
  registry: 'http://127.0.0.1:8787',
  path: '.agents/skills/x',
  spec: 'latest',
  direct: true,
  paid: false,
  dependencies: {},
  ...overrides,
});

const lockOf = (skills: Record<string, LockedSkill>): Lockfile => ({ ...emptyLockfile(), skills: new Map(Object.entries(skills)) });

describe('skillpress-lock.json', () => {
  it('serialises deterministically: sorted keys and files, two-space indent, final newline', () => {
    const a = serialiseLockfile(lockOf({ zeta: entry({ path: '.agents/skills/zeta' }), alpha: entry({ path: '.agents/skills/alpha' }) }));
    const b = serialiseLockfile(lockOf({ alpha: entry({ path: '.agents/skills/alpha' }), zeta: entry({ path: '.agents/skills/zeta' }) }));
    expect(a).toBe(b);
    expect(a.endsWith('}\n')).toBe(true);
    expect(a.indexOf('"alpha"')).toBeLessThan(a.indexOf('"zeta"'));
    expect(a.indexOf('NOTES.md')).toBeLessThan(a.indexOf('SKILL.md'));
    expect(a).toContain('\n  "lockfileVersion": 1,\n');
  });

  it('tells a skills-lock.json in our shape from one the skills CLI wrote', () => {
    expect(writtenBySkillpress(serialiseLockfile(lockOf({ x: entry() })))).toBe(true);
    expect(writtenBySkillpress(serialiseLockfile(emptyLockfile()))).toBe(true);
    expect(writtenBySkillpress('{"version": 1, "skills": {"x": {"source": "o/r", "sourceType": "github", "computedHash": "h"}}}')).toBe(false);
    expect(writtenBySkillpress('{"version": 1, "lockfileVersion": 1, "skills": {}}')).toBe(false);
    expect(writtenBySkillpress('not json')).toBe(false);
    expect(writtenBySkillpress('[]')).toBe(false);
  });

  it('reads back exactly what it wrote', () => {
    const lock = lockOf({ x: entry({ path: '.agents/skills/x' }) });
    const text = serialiseLockfile(lock);
    expect(serialiseLockfile(parseLockfile(text))).toBe(text);
  });

  it('refuses lockfiles that could write outside the project or are malformed', () => {
    const bad = (skills: unknown) => () => parseLockfile(JSON.stringify({ lockfileVersion: 1, skills }));
    expect(() => parseLockfile('{')).toThrow(/not JSON/);
    expect(() => parseLockfile('{"lockfileVersion":2,"skills":{}}')).toThrow(/lockfileVersion/);
    expect(bad({ x: entry({ path: '../outside' }) })).toThrow(/path must be a relative folder/);
    expect(bad({ x: entry({ path: '/etc' }) })).toThrow(/path/);
    expect(bad({ x: entry({ files: [{ filename: '../../.bashrc', size: 1, sha256: 'a'.repeat(64) }] }) })).toThrow(/filename must not contain \.\./);
    expect(bad({ '../x': entry() })).toThrow(/not a skill slug/);
    expect(bad({ x: entry({ path: '.git/hooks' }) })).toThrow(/inside \.git/);
    expect(bad({ x: entry({ path: 'src' }) })).toThrow(/<install root>\/x/);
    expect(bad({ x: entry({ path: 'src/x' }) })).toThrow(/<install root>\/x/);
    expect(bad({ x: entry({ path: '.claude/skills/y' }) })).toThrow(/<install root>\/x/);
    expect(() => parseLockfile(JSON.stringify({ lockfileVersion: 1, dirs: ['src'], skills: { x: entry({ path: 'src/x' }) } }))).not.toThrow();
    expect(() => parseLockfile(JSON.stringify({ lockfileVersion: 1, dirs: ['.Git'], skills: {} }))).toThrow(/inside \.git/);
    expect(() => parseLockfile(JSON.stringify({ lockfileVersion: 1, dirs: '..', skills: {} }))).toThrow(/dirs must be a list/);
    expect(bad({ x: entry({ integrity: 'md5-abc' }) })).toThrow(/integrity/);
    expect(bad({ x: entry({ dependencies: { '../../evil': '*' } }) })).toThrow(/"..\/..\/evil" is not a skill slug/);
    expect(() => parseLockfile(`{"lockfileVersion":1,"skills":{"__proto__":${JSON.stringify(entry())}}}`)).toThrow(/skills\["__proto__"\]: not a skill slug/);
    expect(() =>
      parseLockfile(`{"lockfileVersion":1,"skills":{"x":${JSON.stringify(entry()).replace('"dependencies":{}', '"dependencies":{"__proto__":"*"}')}}}`),
    ).toThrow(/"__proto__" is not a skill slug/);
  });

  it('keeps a skill whose slug names an Object member (constructor)', () => {
    const names = ['constructor', 'helper'];
    const lock = lockOf(Object.fromEntries(names.map((slug) => [slug, entry({ path: `.agents/skills/${slug}`, dependencies: { constructor: '^1.0.0' } })])));
    const read = parseLockfile(serialiseLockfile(lock));
    expect([...read.skills.keys()].sort()).toEqual([...names].sort());
    expect(read.skills.get('constructor')!.dependencies).toEqual(Object.assign(Object.create(null), { constructor: '^1.0.0' }));
    expect(parseLockfile(serialiseLockfile(emptyLockfile())).skills.get('constructor')).toBeUndefined();
    expect(pruneOrphans(read).removed).toEqual([]);
  });

  it('gives the lockfile_invalid code, so the CLI exits 1 with advice', () => {
    try {
      parseLockfile('[]');
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: 'lockfile_invalid', exitCode: 1 });
    }
  });

  it('prunes dependencies that nothing installed on purpose needs any more', () => {
    const lock = lockOf({
      app: entry({ dependencies: { helper: '^1.0.0' } }),
      helper: entry({ direct: false, dependencies: { leaf: '^1.0.0' } }),
      leaf: entry({ direct: false }),
      stray: entry({ direct: false }),
    });
    expect(pruneOrphans(lock).removed).toEqual(['stray']);
    const without = pruneOrphans(lockOf({ ...Object.fromEntries(lock.skills), app: entry({ direct: false, dependencies: { helper: '^1.0.0' } }) }));
    expect(without.removed).toEqual(['app', 'helper', 'leaf', 'stray']);
    expect(without.lock.skills.size).toBe(0);
  });
});
