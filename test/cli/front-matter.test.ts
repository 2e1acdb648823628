import { describe, expect, it } from 'vitest';
import { FrontMatterError, parseFrontMatter } from '#cli/front-matter';
import { skillMetadata } from '#cli/skill-folder';
import { validated } from '#cli/validated';

const fm = (yaml: string, body = '# Body\n') => `---\n${yaml}\n---\n${body}`;

describe('SKILL.md front matter', () => {
  it('reads plain, quoted and block scalars, and keeps the body', () => {
    const { data, body } = parseFrontMatter(
      fm(`name: pretty-json  # the slug-like name
description: "Formats \\"JSON\\": sorts keys"
license: 'It''s MIT'
long: >
  Folded text
  on two lines

  and a paragraph.
literal: |-
  line one
    indented
paid: true
empty:`),
    );
    expect(data).toEqual({
      name: 'pretty-json',
      description: 'Formats "JSON": sorts keys',
      license: "It's MIT",
      long: 'Folded text on two lines\nand a paragraph.\n',
      literal: 'line one\n  indented',
      paid: true,
      empty: null,
    });
    expect(body).toBe('# Body\n');
  });

  it('reads nested mappings and lists, in block and flow style', () => {
    const { data } = parseFrontMatter(
      fm(`metadata:
  category: dev-tools
  tags: [json, "format, pretty"]
dependencies:
  helper: ^1.0.0
  other: ">=2 <3"
allowed-tools:
- Read
- Bash
none: {}`),
    );
    expect(data).toEqual({
      metadata: { category: 'dev-tools', tags: ['json', 'format, pretty'] },
      dependencies: { helper: '^1.0.0', other: '>=2 <3' },
      'allowed-tools': ['Read', 'Bash'],
      none: {},
    });
  });

  it('accepts Windows line endings and a byte order mark', () => {
    expect(parseFrontMatter('\uFEFF---\r\nname: x\r\n---\r\nbody').data).toEqual({ name: 'x' });
  });

  it('rejects a missing or unclosed block and unsupported YAML with a line number', () => {
    expect(() => parseFrontMatter('# no front matter')).toThrow(FrontMatterError);
    expect(() => parseFrontMatter('---\nname: x\n')).toThrow(/not closed/);
    expect(() => parseFrontMatter(fm('name: x\nname: y'))).toThrow(/line 3: "name" is given twice/);
    expect(() => parseFrontMatter(fm('name: &anchor x'))).toThrow(/line 2/);
    expect(() => parseFrontMatter(fm('just text'))).toThrow(/expected "key: value"/);
  });

  it('gives publish its name, description, category, slug and dependencies', () => {
    expect(skillMetadata(fm('name: Pretty JSON\ndescription: Formats JSON\nmetadata:\n  category: Dev Tools\ndependencies:\n  helper: ^1.0.0'))).toEqual({
      name: 'Pretty JSON',
      description: 'Formats JSON',
      category: 'Dev Tools',
      dependencies: { helper: '^1.0.0' },
    });
    expect(() => skillMetadata(fm('name: x'))).toThrow(/needs a name and a description/);
    expect(() => skillMetadata(fm('name: x\ndescription: y\ndependencies: [a]'))).toThrow(/must map skill slugs/);
  });

  it('keeps keys named like Object members as keys, so publish refuses __proto__ as a dependency', async () => {
    const { data } = parseFrontMatter(fm('name: x\nconstructor: yes\ndependencies:\n  constructor: ^1.0.0\n  __proto__: "*"'));
    expect(Object.keys(data)).toEqual(['name', 'constructor', 'dependencies']);
    expect(Object.keys(data.dependencies as object)).toEqual(['constructor', '__proto__']);
    expect(skillMetadata(fm('name: x\ndescription: y\ndependencies:\n  constructor: ^1.0.0')).dependencies).toEqual({ constructor: '^1.0.0' });
    // Kept, so that the publish body's check refuses it instead of never seeing it.
    const { dependencies } = skillMetadata(fm('name: x\ndescription: y\ndependencies:\n  __proto__: "*"'));
    expect(Object.keys(dependencies)).toEqual(['__proto__']);
    await expect(validated('publish', { name: 'x', description: 'y', category: 'testing', dependencies })).rejects.toMatchObject({
      code: 'invalid_request',
      options: { details: { issues: [expect.objectContaining({ path: ['dependencies', '__proto__'] })] } },
    });
  });
});
