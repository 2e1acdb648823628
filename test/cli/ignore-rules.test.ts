import { describe, expect, it } from 'vitest';
import { isIgnored, parseIgnoreFile } from '#cli/ignore-rules';

const ignored = (text: string, path: string, isDir = false, base = '') => isIgnored(parseIgnoreFile(text, base), path, isDir);

describe('.gitignore rules for publish', () => {
  it('matches a bare name at any depth, and an anchored path only from its folder', () => {
    expect(ignored('*.log', 'debug.log')).toBe(true);
    expect(ignored('*.log', 'deep/down/debug.log')).toBe(true);
    expect(ignored('/build', 'build', true)).toBe(true);
    expect(ignored('/build', 'src/build', true)).toBe(false);
    expect(ignored('docs/internal', 'docs/internal', true)).toBe(true);
    expect(ignored('docs/internal', 'x/docs/internal', true)).toBe(false);
  });

  it('matches folders only with a trailing slash', () => {
    expect(ignored('secret/', 'secret', true)).toBe(true);
    expect(ignored('secret/', 'secret', false)).toBe(false);
  });

  it('re-includes with !, the last matching rule winning', () => {
    const rules = '*.md\n!SKILL.md\n';
    expect(ignored(rules, 'notes.md')).toBe(true);
    expect(ignored(rules, 'SKILL.md')).toBe(false);
  });

  it('understands **, ?, classes, comments and escapes', () => {
    expect(ignored('**/cache', 'a/b/cache', true)).toBe(true);
    expect(ignored('a/**/z', 'a/z')).toBe(true);
    expect(ignored('a/**/z', 'a/b/c/z')).toBe(true);
    expect(ignored('out/**', 'out/x/y.js')).toBe(true);
    expect(ignored('file?.txt', 'file1.txt')).toBe(true);
    expect(ignored('file?.txt', 'file10.txt')).toBe(false);
    expect(ignored('*.[oa]', 'lib.a')).toBe(true);
    expect(ignored('*.[!oa]', 'lib.a')).toBe(false);
    expect(ignored('# comment\n\n\\#literal', '#literal')).toBe(true);
    expect(ignored('*.md', 'dir.md/inner.txt')).toBe(false);
  });

  it('scopes the rules of a nested ignore file to its folder', () => {
    expect(ignored('*.tmp', 'sub/x.tmp', false, 'sub')).toBe(true);
    expect(ignored('*.tmp', 'x.tmp', false, 'sub')).toBe(false);
    expect(ignored('/local', 'sub/local', true, 'sub')).toBe(true);
  });
});
