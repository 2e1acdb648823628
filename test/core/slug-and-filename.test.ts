import { describe, expect, it } from 'vitest';
import { filenameConflict, filenameProblem } from '#core/filename';
import { isValidSlug, normaliseCategory, slugify } from '#core/slug';

describe('slugify', () => {
  it.each([
    ['Hello World', 'hello-world'],
    ['  PDF → Markdown!! ', 'pdf-markdown'],
    ['Café Crème', 'cafe-creme'],
    ['a'.repeat(80), 'a'.repeat(64)],
    ['日本語', ''],
  ])('%j → %j', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it('never ends a cut slug with a hyphen', () => {
    expect(slugify(`${'a'.repeat(63)} b`)).toBe('a'.repeat(63));
  });

  it('validates explicit slugs as lower-case ASCII, digits and hyphens, 1 to 64', () => {
    expect(isValidSlug('my-skill-2')).toBe(true);
    expect(isValidSlug('My-Skill')).toBe(false);
    expect(isValidSlug('')).toBe(false);
    expect(isValidSlug('a'.repeat(65))).toBe(false);
    expect(isValidSlug('a_b')).toBe(false);
  });

  it.each(['-lead', 'trail-', 'dou--ble', '-', '--'])('refuses %j: hyphens only join letters and digits', (slug) => {
    expect(isValidSlug(slug)).toBe(false);
  });

  it('accepts a slug of exactly 64 characters and single hyphens', () => {
    expect(isValidSlug('a'.repeat(64))).toBe(true);
    expect(isValidSlug('a-1-b-2')).toBe(true);
  });
});

describe('normaliseCategory', () => {
  it('trims, lower-cases and turns spaces into hyphens', () => {
    expect(normaliseCategory('  Dev Tools ')).toBe('dev-tools');
  });
});

describe('filename rules', () => {
  it.each(['SKILL.md', 'scripts/run.sh', 'a/b/c.txt', '.gitignore', 'docs/..hidden', 'ünïcode.md', 'with space.md'])('accepts %j', (name) => {
    expect(filenameProblem(name)).toBeNull();
  });

  it.each([
    ['', 'empty'],
    ['../etc/passwd', 'traversal'],
    ['a/../../b', 'traversal inside'],
    ['/etc/passwd', 'absolute'],
    ['a\\b', 'backslash'],
    ['./a', 'dot segment'],
    ['a//b', 'empty segment'],
    ['a/', 'trailing slash'],
    ['a\u0000b', 'NUL'],
    ['a\nb', 'newline'],
    ['C:/x', 'drive letter'],
    ['x'.repeat(256), 'too long'],
    ['a:b.md', 'colon (Windows, macOS)'],
    ['what?.md', 'question mark'],
    ['a<b', 'angle bracket'],
    ['a|b', 'pipe'],
    ['a*b', 'star'],
    ['a"b', 'double quote'],
    ['CON', 'device name'],
    ['docs/nul.txt', 'device name with an extension'],
    ['lpt1', 'device name, lower case'],
    ['COM9.md', 'numbered device name'],
    ['notes.', 'trailing dot'],
    ['notes ', 'trailing space'],
    ['dir. /a.md', 'folder with a trailing space'],
    ['a\ud800.md', 'lone surrogate'],
    ['a\u0085b', 'C1 control'],
  ])('rejects %j (%s)', (name) => {
    expect(filenameProblem(name)).not.toBeNull();
  });

  it.each([
    ['console.md', 'a device name as a prefix of a longer word'],
    ['com10.txt', 'COM10 is not a device'],
    ['.gitignore', 'a leading dot'],
    ['scripts/run.sh', 'a nested file'],
    ['caf\u00e9.md', 'non-ASCII letters'],
  ])('accepts %j (%s)', (name) => {
    expect(filenameProblem(name)).toBeNull();
  });

  it('limits each segment to 255 bytes of UTF-8, which every file system holds, however few characters they are', () => {
    expect(filenameProblem('日'.repeat(85))).toBeNull(); // 255 bytes
    expect(filenameProblem('日'.repeat(86))).toBe(
      'must have at most 255 bytes (UTF-8) in each folder or file name; "日日日日日日日日日日日日日日日日日日日日…" has 258',
    );
    expect(filenameProblem(`docs/${'日'.repeat(86)}.md`)).toMatch(/at most 255 bytes/);
    expect(filenameProblem('😀'.repeat(63))).toBeNull(); // 252 bytes
    expect(filenameProblem('😀'.repeat(64))).toMatch(/has 256$/);
    // As sent: 134 characters, far under the 255 the whole name may have, but 396 bytes, which installs nowhere.
    expect(filenameProblem(`${'日'.repeat(131)}.md`)).toMatch(/at most 255 bytes.* has 396$/);
    // Short segments, long path: each segment counts alone.
    expect(filenameProblem(Array(3).fill('日'.repeat(80)).join('/'))).toBeNull();
  });

  it('finds names that repeat ignoring case', () => {
    expect(filenameConflict(['SKILL.md', 'a.md', 'skill.MD'])?.index).toBe(2);
    expect(filenameConflict(['a', 'b'])).toBeUndefined();
  });

  it('finds NFC/NFD twins, which macOS stores as one file', () => {
    expect(filenameConflict(['caf\u00e9.md', 'cafe\u0301.md'])?.index).toBe(1);
  });

  it('finds a file that is also a folder of another, in either order', () => {
    expect(filenameConflict(['a', 'a/b'])).toMatchObject({ index: 1 });
    expect(filenameConflict(['docs/a/b.md', 'docs/a'])).toMatchObject({ index: 1 });
    expect(filenameConflict(['Docs', 'docs/x.md'])).toMatchObject({ index: 1 });
    expect(filenameConflict(['docs/a.md', 'docs/b.md', 'docs/a/c.md'])).toBeUndefined();
    expect(filenameConflict(['docs/a.md', 'docs/b.md', 'a/docs'])).toBeUndefined();
  });
});
