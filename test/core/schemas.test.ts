import { describe, expect, it } from 'vitest';
import { publishBodySchema, versionBodySchema } from '#core/schemas';

const valid = { name: 'Pretty JSON', description: 'Formats JSON', category: ' Dev Tools ' };

describe('publish body', () => {
  it('fills defaults and normalises the category', () => {
    expect(publishBodySchema.parse(valid)).toEqual({
      ...valid,
      category: 'dev-tools',
      paid: false,
      files: [],
      formats: ['agent-skills'],
      dependencies: {},
      visibility: 'public',
    });
  });

  it.each([
    [{ ...valid, extra: 1 }, 'unknown field'],
    [{ ...valid, name: '' }, 'empty name'],
    [{ ...valid, name: '   ' }, 'blank name'],
    [{ ...valid, name: 'x'.repeat(101) }, 'long name'],
    [{ ...valid, description: 'x'.repeat(1025) }, 'long description'],
    [{ ...valid, category: 'Dev/Tools' }, 'bad category'],
    [{ ...valid, category: 'x'.repeat(41) }, 'long category'],
    [{ ...valid, slug: 'Bad Slug' }, 'bad slug'],
    [{ ...valid, paid: 'yes' }, 'paid not boolean'],
    [{ ...valid, files: [{ filename: '../x', content: '' }] }, 'traversal'],
    [
      {
        ...valid,
        files: [
          { filename: 'a', content: '' },
          { filename: 'A', content: '' },
        ],
      },
      'duplicate names',
    ],
    [{ ...valid, files: [{ filename: 'a', content: 1 }] }, 'content not a string'],
    [{ ...valid, dependencies: { 'other-skill': 'not a range!' } }, 'bad range'],
    [{ description: 'd', category: 'c' }, 'missing name'],
    [[], 'not an object'],
  ] as [unknown, string][])('rejects %j (%s)', (body) => {
    expect(publishBodySchema.safeParse(body).success).toBe(false);
  });
});

describe('version body', () => {
  it('needs a version and rejects unknown fields', () => {
    expect(versionBodySchema.safeParse({ changelog: 'x' }).success).toBe(false);
    expect(versionBodySchema.safeParse({ version: '1.1.0', nope: true }).success).toBe(false);
    expect(versionBodySchema.parse({ version: '1.1.0' })).toEqual({ version: '1.1.0', files: [], dependencies: {} });
  });
});
