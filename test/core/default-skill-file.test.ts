import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultSkillFile } from '#core/default-skill-file';
import { checkSkillConformance } from '#core/skill-conformance';
import { SLUG_PATTERN } from '#core/slug';

const asFiles = (file: { filename: string; content: string }) => [{ filename: file.filename, bytes: Buffer.from(file.content, 'utf8') }];

/** Pieces that YAML gives a meaning to, or that naive front-matter readers trip on. */
const awkward = fc.constantFrom(
  '---',
  '...',
  ': ',
  ':',
  '- ',
  '-',
  '#',
  ' #',
  '"',
  "'",
  '\\',
  '\n',
  '\r\n',
  '\r',
  '\t',
  ' ',
  '{',
  '}',
  '[',
  ']',
  ',',
  '&a',
  '*a',
  '!tag',
  '!!str',
  '%',
  '@',
  '`',
  '|',
  '>',
  '? ',
  'true',
  'null',
  '~',
  '0x1F',
  '1e3',
  '2024-01-01',
  '\u2028',
  '\u0085',
  '\uFEFF',
  '\u0000',
  '\u001b',
  '😀',
  'é',
  '日本',
);
const description = fc
  .array(fc.oneof(awkward, fc.string({ unit: 'binary', maxLength: 12 })), { minLength: 1, maxLength: 40 })
  .map((parts) => parts.join(''))
  .filter((text) => text.trim() !== '' && [...text].length <= 1024);
const slug = fc.stringMatching(SLUG_PATTERN).filter((s) => s.length <= 64);

describe('defaultSkillFile', () => {
  it('writes name, description and a heading with the display name', () => {
    expect(defaultSkillFile({ slug: 'pdf-tools', name: 'PDF Tools', description: 'Reads PDFs.' })).toEqual({
      filename: 'SKILL.md',
      content: '---\nname: pdf-tools\ndescription: Reads PDFs.\n---\n\n# PDF Tools\n',
    });
  });

  it('quotes a description that YAML would otherwise misread, on one line', () => {
    const { content } = defaultSkillFile({ slug: 'x-y', name: 'X', description: '- a: b #c\nsecond line' });
    expect(content).toBe('---\nname: x-y\ndescription: "- a: b #c\\nsecond line"\n---\n\n# X\n');
  });

  it('keeps a description of blank lines and control characters on one line, reading back exactly', () => {
    // Found by the property below: the yaml package folded this double-quoted string over several
    // lines and escaped the space of a blank one as a backslash, which read back as "\\".
    const description = '\n \n\u0000\u0000---';
    const { content } = defaultSkillFile({ slug: 'x-y', name: 'X', description });
    expect(content).toBe('---\nname: x-y\ndescription: "\\n \\n\\u0000\\u0000---"\n---\n\n# X\n');
    expect(checkSkillConformance(asFiles({ filename: 'SKILL.md', content }), 'x-y').description).toBe(description);
  });

  it('always conforms, and any description reads back exactly', () => {
    fc.assert(
      fc.property(slug, description, fc.string({ minLength: 1, maxLength: 100 }), (slug, description, name) => {
        const result = checkSkillConformance(asFiles(defaultSkillFile({ slug, name, description })), slug);
        expect(result.issues).toEqual([]);
        expect(result.warnings).toEqual([]);
        expect(result.frontMatter).toEqual({ name: slug, description });
        expect(result.description).toBe(description);
      }),
      { numRuns: 500 },
    );
  });
});
