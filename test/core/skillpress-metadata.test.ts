import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readFrontMatter } from '#core/skill-front-matter';
import { SLUG_PATTERN } from '#core/slug';
import { formatDependencies, parseDependencies, readSkillpressKeys, topLevelKeyWarning } from '#core/skillpress-metadata';

const frontMatter = (yaml: string) => {
  const { data, problems } = readFrontMatter(`---\n${yaml}\n---\n`);
  expect(problems).toEqual([]);
  return data!;
};

describe('parseDependencies', () => {
  it.each([
    ['', {}],
    ['   ', {}],
    ['pdf-tools@^1.2.0', { 'pdf-tools': '^1.2.0' }],
    ['pdf-tools@^1.2.0, other@1.0.0', { 'pdf-tools': '^1.2.0', other: '1.0.0' }],
    ['  a@*  ,b@>=1.2.0 <2.0.0 || 3.x ', { a: '*', b: '>=1.2.0 <2.0.0 || 3.x' }],
    ['a @ ~1.2', { a: '~1.2' }],
  ])('reads %j', (text, dependencies) => {
    expect(parseDependencies(text)).toEqual({ dependencies, problems: [] });
  });

  it.each([
    ['pdf-tools', 'needs a version range: write pdf-tools@^1.0.0'],
    ['pdf-tools@', '"pdf-tools@" needs a version range: write pdf-tools@^1.0.0'],
    ['pdf-tools@ ', 'needs a version range'],
    ['pdf-tools@banana', '"banana" (for pdf-tools) is not a semver range'],
    ['PDF-Tools@1.0.0', '"PDF-Tools" is not a skill slug'],
    ['@1.0.0', '"" is not a skill slug'],
    ['a@1.0.0,', 'entry 2 is empty'],
    ['a@1.0.0,,b@1', 'entry 2 is empty'],
    ['a@1.0.0, a@2.0.0', 'a is listed twice'],
    ['a: ^1.0.0', 'needs a version range: write slug@range'],
  ])('rejects %j: %s', (text, problem) => {
    const { problems } = parseDependencies(text);
    expect(problems).toEqual([expect.stringContaining(problem)]);
  });

  it('keeps the good entries next to a bad one and reports every bad one', () => {
    expect(parseDependencies('a@1.0.0, b, c@nope')).toEqual({
      dependencies: { a: '1.0.0' },
      problems: [expect.stringContaining('"b"'), expect.stringContaining('"nope"')],
    });
  });

  it('rejects more than 32 entries', () => {
    const text = Array.from({ length: 33 }, (_, i) => `s${i}@1.0.0`).join(', ');
    expect(parseDependencies(text).problems).toEqual(['at most 32 dependencies, found 33']);
  });
});

describe('formatDependencies', () => {
  it('writes slug@range entries joined by ", "', () => {
    expect(formatDependencies({ 'pdf-tools': '^1.2.0', other: '>=1.0.0 <2' })).toBe('pdf-tools@^1.2.0, other@>=1.0.0 <2');
    expect(formatDependencies({})).toBe('');
  });

  it.each([[{ 'Bad Slug': '1.0.0' }], [{ a: 'not a range' }], [{ a: ' ^1.0.0' }]])('refuses to write %j, which would not read back', (dependencies) => {
    expect(() => formatDependencies(dependencies)).toThrow(RangeError);
  });

  it('round-trips through parseDependencies', () => {
    const range = fc.oneof(
      fc.constantFrom('*', 'x', '>=1.2.0 <2.0.0', '1.x || 2.x', '~1.2', '^0.0.1', '1.2.3 - 2.3.4', '>1.0.0-beta.1'),
      fc.tuple(fc.constantFrom('', '^', '~', '>=', '<', '='), fc.nat(99), fc.nat(99), fc.nat(99)).map(([op, a, b, c]) => `${op}${a}.${b}.${c}`),
    );
    const slug = fc.stringMatching(SLUG_PATTERN).filter((s) => s.length <= 64);
    fc.assert(
      fc.property(fc.dictionary(slug, range, { maxKeys: 32 }), (dependencies) => {
        expect(parseDependencies(formatDependencies(dependencies))).toEqual({ dependencies, problems: [] });
      }),
      { numRuns: 300 },
    );
  });
});

describe('readSkillpressKeys', () => {
  it('reads category, slug and dependencies from metadata, without warnings', () => {
    const data = frontMatter('name: pdf-tools\nmetadata:\n  category: Dev Tools\n  slug: pdf-tools\n  dependencies: other@^1.0.0, more@2.0.0');
    expect(readSkillpressKeys(data)).toEqual({
      category: 'dev-tools',
      slug: 'pdf-tools',
      dependencies: { other: '^1.0.0', more: '2.0.0' },
      warnings: [],
    });
  });

  it('reads none of them when there are none', () => {
    expect(readSkillpressKeys(frontMatter('name: pdf-tools\ndescription: d'))).toEqual({ dependencies: {}, warnings: [] });
  });

  it('reads the old top-level keys, dependencies as a mapping, with a deprecation warning for each', () => {
    const data = frontMatter('name: pdf-tools\ncategory: documents\nslug: pdf-tools\ndependencies:\n  other: ^1.0.0');
    expect(readSkillpressKeys(data)).toEqual({
      category: 'documents',
      slug: 'pdf-tools',
      dependencies: { other: '^1.0.0' },
      warnings: [topLevelKeyWarning('category'), topLevelKeyWarning('slug'), topLevelKeyWarning('dependencies')],
    });
  });

  it('reads top-level dependencies written in the new encoding too', () => {
    expect(readSkillpressKeys(frontMatter('dependencies: other@^1.0.0')).dependencies).toEqual({ other: '^1.0.0' });
  });

  it('prefers metadata when both places set a key, and still warns about the top-level one', () => {
    const result = readSkillpressKeys(frontMatter('category: old\nmetadata:\n  category: new'));
    expect(result).toMatchObject({ category: 'new', warnings: [topLevelKeyWarning('category')] });
  });

  it('gives the same deprecation text as the conformance check, so the two lists merge', () => {
    expect(topLevelKeyWarning('category')).toContain('move it under metadata');
  });

  it('refuses nothing: a value not in its form is named in a warning, with its path, and not read', () => {
    const data = frontMatter('name: pdf-tools\nmetadata:\n  category: "not/valid"\n  slug: other-name\n  dependencies: "a, b@nope"');
    const keys = readSkillpressKeys(data);
    expect(keys).toEqual({ dependencies: {}, warnings: [expect.any(String), expect.any(String), expect.any(String)] });
    expect(keys.warnings[0]).toMatch(/^metadata\.category is not read: a category is text of 1 to 40/);
    expect(keys.warnings[1]).toMatch(/^metadata\.slug is not read: "other-name" differs from the name "pdf-tools"/);
    expect(keys.warnings[2]).toMatch(
      /^metadata\.dependencies is not read: "a" needs a version range: write a@\^1\.0\.0; "nope" \(for b\) is not a semver range/,
    );
  });

  // What other tools write under these names at the top level: real skills, published as they are.
  it.each([
    ['slug: Not A Slug', 'slug is not read: a slug is text'],
    ['slug: a--b', 'slug is not read: a slug is text'],
    ['category: 42', 'category is not read: a category is text'],
    ['category: Security & Testing', 'category is not read: a category is text'],
    ['dependencies: [a@1.0.0]', 'dependencies is not read: dependencies are one line of text'],
    ['dependencies: [python3, pandas]', 'dependencies is not read: dependencies are one line of text'],
    ['dependencies:\n  python:\n    - pandas>=2', 'dependencies is not read: python: that value is not a semver range'],
    ['dependencies: python>=3.8, pandas', 'dependencies is not read: "python>=3.8" needs a version range'],
    ['metadata:\n  dependencies:\n    a: ^1.0.0', 'metadata.dependencies is not read: dependencies are one line of text'],
    ['dependencies:\n  Bad_Slug: ^1.0.0', 'dependencies is not read: "Bad_Slug" is not a skill slug'],
    ['dependencies:\n  a: 1', 'dependencies is not read: a: that value is not a semver range'],
  ])('reads nothing from %j, and says why', (yaml, warning) => {
    const keys = readSkillpressKeys(frontMatter(yaml));
    expect(keys).toMatchObject({ dependencies: {} });
    expect(keys.category).toBeUndefined();
    expect(keys.slug).toBeUndefined();
    expect(keys.warnings).toContainEqual(expect.stringContaining(warning));
  });

  it('reads no top-level dependencies past 32', () => {
    const yaml = `dependencies:\n${Array.from({ length: 33 }, (_, i) => `  s${i}: 1.0.0`).join('\n')}`;
    const keys = readSkillpressKeys(frontMatter(yaml));
    expect(keys.dependencies).toEqual({});
    expect(keys.warnings).toContainEqual(expect.stringContaining('at most 32 dependencies, found 33'));
  });
});
