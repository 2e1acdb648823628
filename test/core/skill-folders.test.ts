import { describe, expect, it } from 'vitest';
import { folderFiles, suggestedVersion, type TreeEntry } from '#core/repo-import';
import { skillFolderPaths } from '#core/skill-folders';

describe('skillFolderPaths', () => {
  it('finds folders with a SKILL.md up to six levels down, in path order, the root alone when it is one', () => {
    expect(skillFolderPaths(['b/SKILL.md', 'a/x/SKILL.md', 'README.md', 'a/x/scripts/run.sh'])).toEqual(['a/x', 'b']);
    expect(skillFolderPaths(['SKILL.md', 'sub/SKILL.md'])).toEqual(['']);
    expect(skillFolderPaths(['1/2/3/4/5/6/SKILL.md', '1/2/3/4/5/6/7/SKILL.md'])).toEqual(['1/2/3/4/5/6']);
  });

  it('never looks in dot-folders or node_modules, and counts a SKILL.md inside a skill as its file', () => {
    expect(skillFolderPaths(['.github/s/SKILL.md', 'node_modules/d/SKILL.md', 'x/.hidden/SKILL.md', 'ok/SKILL.md', 'ok/examples/SKILL.md'])).toEqual(['ok']);
  });
});

const blob = (path: string, mode = '100644'): TreeEntry => ({ path, mode, type: 'blob', sha: `sha-${path}`, size: 3 });
const tree = (path: string): TreeEntry => ({ path, mode: '040000', type: 'tree', sha: `tree-${path}` });

describe('folderFiles', () => {
  const entries = [
    blob('s/SKILL.md'),
    blob('s/run.sh', '100755'),
    tree('s/docs'),
    blob('s/docs/a.md'),
    blob('s/link.md', '120000'),
    blob('s/dir-link', '120000'),
    blob('s/out', '120000'),
    blob('outside.txt'),
  ];

  it('follows links to files and folders inside the folder, keeping executable bits', () => {
    const links = new Map([
      ['s/link.md', 'docs/a.md'],
      ['s/dir-link', './docs'],
    ]);
    const result = folderFiles(
      entries.filter((e) => e.path !== 's/out'),
      's',
      links,
    );
    expect(result).toEqual({
      files: [
        { filename: 'SKILL.md', sha: 'sha-s/SKILL.md', size: 3, executable: false },
        { filename: 'dir-link/a.md', sha: 'sha-s/docs/a.md', size: 3, executable: false },
        { filename: 'docs/a.md', sha: 'sha-s/docs/a.md', size: 3, executable: false },
        { filename: 'link.md', sha: 'sha-s/docs/a.md', size: 3, executable: false },
        { filename: 'run.sh', sha: 'sha-s/run.sh', size: 3, executable: true },
      ],
    });
  });

  it('refuses links pointing outside the folder, to nothing, or in a cycle, by name', () => {
    const links = new Map([
      ['s/link.md', 'missing.md'],
      ['s/dir-link', 'dir-link'],
      ['s/out', '../outside.txt'],
    ]);
    expect(folderFiles(entries, 's', links)).toEqual({ refusedLinks: ['dir-link', 'link.md', 'out'] });
    expect(folderFiles([blob('SKILL.md'), blob('l', '120000')], '', new Map([['l', '../../etc/passwd']]))).toEqual({ refusedLinks: ['l'] });
  });
});

describe('suggestedVersion', () => {
  it('takes metadata.version, else bumps the patch', () => {
    expect(suggestedVersion('1.2.3', { version: '2.0.0' })).toBe('2.0.0');
    // Content changed, the declared version not bumped with it: the next patch, not a refusal.
    expect(suggestedVersion('1.2.3', { version: '1.2.3' })).toBe('1.2.4');
    expect(suggestedVersion('1.2.3', { version: 'not-semver' })).toBe('1.2.4');
    expect(suggestedVersion('1.2.3', { category: 'x' })).toBe('1.2.4');
    expect(suggestedVersion('1.2.3', undefined)).toBe('1.2.4');
  });
});
