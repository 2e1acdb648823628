import { describe, expect, it } from 'vitest';
import { duplicateFilenameIndex, filenameProblem } from '../../core/filename.ts';
import { isValidSlug, normaliseCategory, slugify } from '../../core/slug.ts';

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
  ])('rejects %j (%s)', (name) => {
    expect(filenameProblem(name)).not.toBeNull();
  });

  it('finds names that repeat ignoring case', () => {
    expect(duplicateFilenameIndex(['SKILL.md', 'a.md', 'skill.MD'])).toBe(2);
    expect(duplicateFilenameIndex(['a', 'b'])).toBe(-1);
  });
});
