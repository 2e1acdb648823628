import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALLOWED_TOOLS_LIST_WARNING, checkSkillConformance, discoveryDescription, type SkillFile } from '#core/skill-conformance';
import { FRONT_MATTER_LIMITS, MAX_FRONT_MATTER_DEPTH } from '#core/skill-front-matter';

const file = (filename: string, content: string | Uint8Array): SkillFile => ({
  filename,
  bytes: typeof content === 'string' ? Buffer.from(content, 'utf8') : content,
});
const skillMd = (frontMatter: string, body = '\n# PDF tools\n') => file('SKILL.md', `---\n${frontMatter}\n---\n${body}`);
const check = (frontMatter: string, slug = 'pdf-tools') => checkSkillConformance([skillMd(frontMatter)], slug);
const valid = 'name: pdf-tools\ndescription: Extracts text and tables from PDF files.';

describe('checkSkillConformance: the files', () => {
  it('accepts a root SKILL.md with a name and a description, and returns the parsed front matter', () => {
    const result = checkSkillConformance([skillMd(valid), file('scripts/run.sh', '#!/bin/sh\n')], 'pdf-tools');
    expect(result).toEqual({
      issues: [],
      warnings: [],
      frontMatter: { name: 'pdf-tools', description: 'Extracts text and tables from PDF files.' },
      description: 'Extracts text and tables from PDF files.',
    });
  });

  it('rejects a version with no files at all', () => {
    expect(checkSkillConformance([], 'pdf-tools').issues).toEqual([{ file: 'SKILL.md', message: expect.stringContaining('there are no files') }]);
  });

  it('rejects files without a SKILL.md', () => {
    expect(checkSkillConformance([file('README.md', '# hi')], 'pdf-tools').issues).toEqual([
      { file: 'SKILL.md', message: expect.stringContaining('no SKILL.md at the root') },
    ]);
  });

  it.each(['skill.md', 'Skill.md', 'SKILL.MD'])('rejects %s, naming the exact spelling it needs', (name) => {
    const { issues } = checkSkillConformance([file(name, `---\n${valid}\n---\n`)], 'pdf-tools');
    expect(issues).toEqual([{ file: name, message: expect.stringContaining(`named exactly SKILL.md, not "${name}"`) }]);
  });

  it('rejects a SKILL.md that is not at the root', () => {
    const { issues } = checkSkillConformance([file('pdf-tools/SKILL.md', `---\n${valid}\n---\n`)], 'pdf-tools');
    expect(issues).toEqual([{ file: 'pdf-tools/SKILL.md', message: expect.stringContaining('at the root of the skill, not at "pdf-tools/SKILL.md"') }]);
  });

  it('accepts another SKILL.md deeper down when the root one is there', () => {
    expect(checkSkillConformance([skillMd(valid), file('examples/SKILL.md', 'anything')], 'pdf-tools').issues).toEqual([]);
  });

  it('rejects a SKILL.md that is not UTF-8', () => {
    const latin1 = Uint8Array.from([...Buffer.from(`---\n${valid}\n---\n`), 0xe9, 0xff]);
    expect(checkSkillConformance([file('SKILL.md', latin1)], 'pdf-tools').issues).toEqual([{ file: 'SKILL.md', message: 'SKILL.md must be UTF-8 text' }]);
  });
});

describe('checkSkillConformance: finding the front matter', () => {
  it('rejects a SKILL.md without front matter', () => {
    const { issues, frontMatter } = checkSkillConformance([file('SKILL.md', '# PDF tools\n\nname: pdf-tools\n')], 'pdf-tools');
    expect(issues).toEqual([{ file: 'SKILL.md', message: expect.stringContaining('must begin with YAML front matter') }]);
    expect(frontMatter).toBeUndefined();
  });

  it('rejects front matter that does not start on the first line', () => {
    expect(checkSkillConformance([file('SKILL.md', `\n---\n${valid}\n---\n`)], 'pdf-tools').issues).toHaveLength(1);
  });

  it.each([['--- '], ['----'], ['---yaml']])('rejects the opening line %j, which the skills CLI does not take for front matter', (opening) => {
    expect(checkSkillConformance([file('SKILL.md', `${opening}\n${valid}\n---\n`)], 'pdf-tools').issues).toEqual([
      { file: 'SKILL.md', message: expect.stringContaining('must begin with YAML front matter') },
    ]);
  });

  it('accepts a closing line with trailing spaces', () => {
    expect(checkSkillConformance([file('SKILL.md', `---\n${valid}\n---  \n# Body\n`)], 'pdf-tools').issues).toEqual([]);
  });

  it('rejects front matter that is never closed', () => {
    expect(checkSkillConformance([file('SKILL.md', `---\n${valid}\n`)], 'pdf-tools').issues).toEqual([
      { file: 'SKILL.md', message: expect.stringContaining('not closed') },
    ]);
  });

  it('does not take a YAML "..." end marker for the closing line, as the skills CLI does not', () => {
    expect(checkSkillConformance([file('SKILL.md', `---\n${valid}\n...\n# Body\n`)], 'pdf-tools').issues).toEqual([
      { file: 'SKILL.md', message: expect.stringContaining('not closed') },
    ]);
  });

  it('reads CRLF line endings', () => {
    const crlf = `---\r\n${valid.replace(/\n/g, '\r\n')}\r\n---\r\n# PDF tools\r\n`;
    expect(checkSkillConformance([file('SKILL.md', crlf)], 'pdf-tools')).toMatchObject({
      issues: [],
      warnings: [],
      description: 'Extracts text and tables from PDF files.',
    });
  });

  it('reads a file that starts with a byte-order mark, and warns that the reference validator does not', () => {
    const result = checkSkillConformance([file('SKILL.md', `\uFEFF---\r\n${valid.replace(/\n/g, '\r\n')}\r\n---\r\n`)], 'pdf-tools');
    expect(result.issues).toEqual([]);
    expect(result.frontMatter).toEqual({ name: 'pdf-tools', description: 'Extracts text and tables from PDF files.' });
    expect(result.warnings).toEqual([expect.stringContaining('byte-order mark')]);
  });

  it('reports invalid YAML with its line number in SKILL.md', () => {
    const { issues } = check(`${valid}\nmetadata:\n\tauthor: x`);
    expect(issues).toEqual([{ file: 'SKILL.md', message: expect.stringMatching(/^invalid YAML in the front matter: .*\(line 5\)$/) }]);
  });

  it('rejects a key given twice', () => {
    expect(check(`${valid}\nname: other`).issues).toEqual([{ file: 'SKILL.md', message: expect.stringMatching(/unique.*\(line 4\)/) }]);
  });

  it('rejects an unknown YAML tag, which js-yaml based clients cannot read', () => {
    expect(check(`${valid}\nlicense: !custom MIT`).issues).toEqual([{ file: 'SKILL.md', message: expect.stringContaining('Unresolved tag') }]);
  });

  it('rejects an alias to a missing anchor without throwing', () => {
    expect(check(`${valid}\nlicense: *nowhere`).issues).toEqual([{ file: 'SKILL.md', message: expect.stringContaining('invalid YAML') }]);
  });

  it('refuses an alias bomb instead of expanding it', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...'bcdefgh'.split('').map((k, i) => `${k}: &${k} [${Array(10).fill(`*${'abcdefgh'[i]}`).join(', ')}]`),
    ].join('\n');
    expect(check(`${valid}\n${bomb}`).issues).toEqual([{ file: 'SKILL.md', message: expect.stringContaining('aliases') }]);
  });

  it.each([['x: &a [*a]'], ['x: &a {b: *a}']])('rejects the self-containing alias %j without recursing forever', (yaml) => {
    expect(check(`${valid}\n${yaml}`).issues).toEqual([
      { file: 'SKILL.md', path: ['x', expect.anything()], message: expect.stringContaining('must not contain itself') },
    ]);
  });

  it('reports front matter nested more than 32 levels deep as a problem, however deep', () => {
    for (const depth of [32, 5000]) {
      expect(check(`${valid}\nx: ${'['.repeat(depth)}${']'.repeat(depth)}`).issues).toEqual([
        { file: 'SKILL.md', message: `the front matter nests lists and mappings more than ${MAX_FRONT_MATTER_DEPTH} levels deep` },
      ]);
    }
  });

  it('accepts front matter exactly 32 levels deep', () => {
    // The root mapping is the first level, so x holds 31 more.
    expect(check(`${valid}\nx: ${'['.repeat(31)}${']'.repeat(31)}`).issues).toEqual([]);
  });

  it('reports nesting that aliases build deeper than the limit, at the path where it goes too deep', () => {
    const chain = ['a0: &a0 [[[[[[[[[[1]]]]]]]]]]', ...Array.from({ length: 3 }, (_, i) => `a${i + 1}: &a${i + 1} [[[[[[[[[*a${i}]]]]]]]]]`)].join('\n');
    const issues = check(`${valid}\n${chain}`).issues;
    expect(issues).toEqual([{ file: 'SKILL.md', path: expect.arrayContaining(['a3']), message: expect.stringContaining('levels deep') }]);
    expect(issues[0]!.path).toHaveLength(MAX_FRONT_MATTER_DEPTH);
  });

  it('never throws, whatever the text', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        '---',
        '\n',
        '\r\n',
        '\uFEFF',
        ': ',
        '- ',
        '  ',
        '\t',
        '&a ',
        '*a',
        '!t ',
        '!!binary ',
        '? ',
        '[',
        ']',
        '{',
        '}',
        ',',
        '"',
        "'",
        '|',
        '>',
        '#',
        'name',
        'description',
        'metadata',
        'pdf-tools',
        '<<: ',
      ),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
        const result = checkSkillConformance([file('SKILL.md', `---\n${pieces.join('')}\n---\n`)], 'pdf-tools');
        expect(Array.isArray(result.issues) && Array.isArray(result.warnings)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it.each([
    ['a list', '- name: pdf-tools'],
    ['text', 'just some words'],
  ])('rejects front matter that is %s, not a mapping', (_label, yaml) => {
    expect(check(yaml).issues).toEqual([{ file: 'SKILL.md', message: expect.stringContaining('must be a YAML mapping') }]);
  });

  it('treats an empty front matter as a mapping with neither key', () => {
    const { issues } = checkSkillConformance([file('SKILL.md', '---\n---\n# Body\n')], 'pdf-tools');
    expect(issues.map((issue) => issue.path)).toEqual([['name'], ['description']]);
  });

  it('rejects a key that is a collection', () => {
    expect(check(`${valid}\nmetadata:\n  ? [a, b]\n  : c`).issues).toEqual([
      { file: 'SKILL.md', path: ['metadata'], message: expect.stringContaining('key must be plain text') },
    ]);
  });
});

describe('checkSkillConformance: the bounds on the front matter', () => {
  const { bytes, entries, aliases } = FRONT_MATTER_LIMITS;
  const keys = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `k${from + i}: v`).join('\n');
  /** `valid` padded with a metadata value to exactly `size` bytes of front matter. */
  const ofBytes = (size: number, filler = 'x') => {
    const head = `${valid}\nmetadata:\n  note: `;
    const room = size - Buffer.byteLength(head);
    return head + filler.repeat(Math.floor(room / Buffer.byteLength(filler))) + 'x'.repeat(room % Buffer.byteLength(filler));
  };

  it('refuses the attack as sent, 10,000 unknown keys (89 KB), by its size alone', () => {
    const attack = `${valid}\n${keys(10_000)}`;
    expect(check(attack)).toEqual({
      issues: [
        {
          file: 'SKILL.md',
          message: `the front matter is ${Buffer.byteLength(attack)} bytes; at most ${bytes} are allowed (keep long text in the body of SKILL.md)`,
        },
      ],
      warnings: [],
    });
  });

  it('accepts front matter of exactly the limit in bytes and refuses one byte more, counting UTF-8 bytes, not characters', () => {
    expect(check(ofBytes(bytes)).issues).toEqual([]);
    expect(check(ofBytes(bytes, 'é')).issues).toEqual([]);
    expect(check(ofBytes(bytes + 1)).issues).toEqual([{ file: 'SKILL.md', message: expect.stringContaining(`at most ${bytes} are allowed`) }]);
    expect(check(ofBytes(bytes + 1, 'é')).issues).toEqual([{ file: 'SKILL.md', message: expect.stringContaining(`at most ${bytes} are allowed`) }]);
  });

  it('judges the size before the YAML, so an oversized block that is also invalid costs no parse', () => {
    expect(check(`${valid}\nx: [${'['.repeat(bytes)}`).issues).toEqual([{ file: 'SKILL.md', message: expect.stringContaining('bytes; at most') }]);
  });

  it('accepts as many keys and list items as the limit and refuses one more, at any depth', () => {
    // name and description are two of them.
    expect(check(`${valid}\n${keys(entries - 2)}`).issues).toEqual([]);
    const tooMany = { file: 'SKILL.md', message: `the front matter has more than ${entries} keys and list items` };
    expect(check(`${valid}\n${keys(entries - 1)}`).issues).toEqual([tooMany]);
    expect(check(`${valid}\nmetadata:\n${keys(entries).replace(/^/gm, '  ')}`).issues).toEqual([tooMany]);
    expect(check(`${valid}\nallowed-tools: [${Array(entries).fill('a').join(',')}]`).issues).toEqual([tooMany]);
    expect(check(`${valid}\nx:\n${Array(entries).fill('  - a').join('\n')}`).issues).toEqual([tooMany]);
    expect(check(`${valid}\nx: {${keys(entries).replace(/\n/g, ', ')}}`).issues).toEqual([tooMany]);
  });

  it(`refuses more than the limit of aliases, and accepts the limit`, () => {
    const using = (count: number) => `${valid}\nx: &a v\ny: [${Array(count).fill('*a').join(', ')}]`;
    expect(check(using(aliases)).issues).toEqual([]);
    expect(check(using(aliases + 1)).issues).toEqual([{ file: 'SKILL.md', message: `the front matter uses more than ${aliases} aliases (*name)` }]);
  });

  it('lists the first twenty YAML errors and counts the rest, however many a broken block holds', () => {
    const issues = check(`${valid}\nx: ${'&a '.repeat(100)}v`).issues;
    expect(issues).toHaveLength(21);
    expect(issues[19]!.message).toContain('invalid YAML');
    expect(issues[20]).toEqual({ file: 'SKILL.md', message: 'and 79 more YAML errors in the front matter' });
  });

  it('counts what aliases repeat towards the keys and list items', () => {
    const list = `[${Array(100).fill('v').join(', ')}]`;
    expect(check(`${valid}\na: &a ${list}\nb: [${Array(4).fill('*a').join(', ')}]`).issues).toEqual([]);
    expect(check(`${valid}\na: &a ${list}\nb: [${Array(5).fill('*a').join(', ')}]`).issues).toEqual([
      { file: 'SKILL.md', path: ['b', expect.any(Number)], message: `aliases repeat the front matter past ${entries} keys and list items` },
    ]);
  });
});

describe('checkSkillConformance: name', () => {
  it('accepts the skill slug', () => {
    expect(check(valid).issues).toEqual([]);
  });

  it('rejects a missing name, suggesting the slug', () => {
    expect(check('description: Reads PDFs.').issues).toEqual([{ file: 'SKILL.md', path: ['name'], message: expect.stringContaining('name: pdf-tools') }]);
  });

  it('rejects a name that differs from the slug', () => {
    expect(check('name: pdf-helper\ndescription: Reads PDFs.').issues).toEqual([
      { file: 'SKILL.md', path: ['name'], message: 'name "pdf-helper" must be the skill\'s slug, "pdf-tools"' },
    ]);
  });

  it.each([['PDF-Tools'], ['pdf tools'], ['-pdf-tools'], ['pdf-tools-'], ['pdf--tools'], ['pdf_tools'], ['pdf-tööls'], ['a'.repeat(65)], ['']])(
    'rejects the name %j, which is not a valid skill name',
    (name) => {
      const { issues } = check(`name: "${name}"\ndescription: Reads PDFs.`);
      expect(issues).toEqual([
        { file: 'SKILL.md', path: ['name'], message: expect.stringContaining('lower-case letters and digits joined by single hyphens') },
      ]);
    },
  );

  it.each([
    ['123', 'a number'],
    ['true', 'a boolean'],
    ['[pdf-tools]', 'a list'],
    ['', 'empty (null)'],
  ])('rejects name: %s (%s)', (value) => {
    expect(check(`name: ${value}\ndescription: Reads PDFs.`).issues).toEqual([
      { file: 'SKILL.md', path: ['name'], message: expect.stringContaining('name must be text') },
    ]);
  });

  it('without a slug, accepts any valid name', () => {
    expect(checkSkillConformance([skillMd('name: anything-goes\ndescription: d')]).issues).toEqual([]);
  });

  it('accepts a 64-character name that is the slug', () => {
    const slug = 'a'.repeat(64);
    expect(check(`name: ${slug}\ndescription: d`, slug).issues).toEqual([]);
  });
});

describe('checkSkillConformance: description', () => {
  it('rejects a missing description', () => {
    expect(check('name: pdf-tools').issues).toEqual([{ file: 'SKILL.md', path: ['description'], message: expect.stringContaining('no description') }]);
  });

  it.each([['""'], ['"   "'], ["'\t'"]])('rejects the blank description %s', (value) => {
    expect(check(`name: pdf-tools\ndescription: ${value}`).issues).toEqual([
      { file: 'SKILL.md', path: ['description'], message: 'description must not be blank' },
    ]);
  });

  it.each([['42'], ['true'], ['[a, b]'], ['{a: b}'], ['']])('rejects description: %s, which is not text', (value) => {
    expect(check(`name: pdf-tools\ndescription: ${value}`).issues).toEqual([
      { file: 'SKILL.md', path: ['description'], message: expect.stringContaining('description must be text') },
    ]);
  });

  it('accepts 1024 characters and rejects 1025', () => {
    expect(check(`name: pdf-tools\ndescription: ${'d'.repeat(1024)}`).issues).toEqual([]);
    expect(check(`name: pdf-tools\ndescription: ${'d'.repeat(1025)}`).issues).toEqual([
      { file: 'SKILL.md', path: ['description'], message: expect.stringMatching(/^description is 1025 characters; at most 1024 are allowed: /) },
    ]);
  });

  it('counts characters, not UTF-16 units, as the reference validator does', () => {
    const emoji = '😀'.repeat(1024);
    expect(check(`name: pdf-tools\ndescription: ${emoji}`)).toMatchObject({ issues: [], description: emoji });
  });

  it('accepts a multi-line block description and returns it for the discovery index', () => {
    const result = check('name: pdf-tools\ndescription: >\n  Reads PDFs.\n  Use when a PDF is mentioned.');
    expect(result.issues).toEqual([]);
    expect(result.description).toBe('Reads PDFs. Use when a PDF is mentioned.\n');
  });

  it('leaves the description out of the result when it is not valid', () => {
    expect(check('name: pdf-tools\ndescription: 42').description).toBeUndefined();
  });
});

describe('checkSkillConformance: optional keys', () => {
  it('accepts every optional key when well typed', () => {
    const all = `${valid}\nlicense: Apache-2.0\ncompatibility: Requires Python 3.14+ and uv\nmetadata:\n  author: example-org\n  version: "1.0"\nallowed-tools: Bash(git:*) Read`;
    expect(check(all)).toMatchObject({ issues: [], warnings: [] });
  });

  it.each([
    ['license', '2024'],
    ['license', '{name: MIT}'],
    ['license', ''],
    ['allowed-tools', '[Read, 2]'],
    ['allowed-tools', '{Read: yes}'],
    ['compatibility', '3.14'],
    ['compatibility', ''],
  ])('rejects %s: %j, which is not text', (key, value) => {
    expect(check(`${valid}\n${key}: ${value}`).issues).toEqual([{ file: 'SKILL.md', path: [key], message: expect.stringContaining(`${key} must be text`) }]);
  });

  it.each([
    ['a flow list', '[Read, Grep]'],
    ['a block list', '\n  - Read\n  - Bash(git:*)'],
  ])('accepts allowed-tools as %s of tool names, with a warning, as Claude Code reads it', (_label, value) => {
    const result = check(`${valid}\nallowed-tools: ${value}`);
    expect(result.issues).toEqual([]);
    expect(result.warnings).toEqual([ALLOWED_TOOLS_LIST_WARNING]);
    expect(Array.isArray(result.frontMatter?.['allowed-tools'])).toBe(true);
  });

  it('refuses a description over 1024 characters with a message that says how to fix it', () => {
    const { issues } = check(`name: pdf-tools\ndescription: ${'d'.repeat(1068)}`);
    expect(issues).toEqual([
      {
        file: 'SKILL.md',
        path: ['description'],
        message: expect.stringMatching(/^description is 1068 characters; at most 1024 are allowed: .*move the rest into the body of SKILL.md/),
      },
    ]);
  });

  it('accepts a compatibility of 500 characters and rejects 501', () => {
    expect(check(`${valid}\ncompatibility: ${'c'.repeat(500)}`).issues).toEqual([]);
    expect(check(`${valid}\ncompatibility: ${'c'.repeat(501)}`).issues).toEqual([
      { file: 'SKILL.md', path: ['compatibility'], message: 'compatibility is 501 characters; at most 500 are allowed' },
    ]);
  });

  it.each([
    ['a list', '\n  - a'],
    ['text', 'author=me'],
    ['empty (null)', ''],
  ])('rejects metadata that is %s', (_label, value) => {
    expect(check(`${valid}\nmetadata: ${value}`).issues).toEqual([
      { file: 'SKILL.md', path: ['metadata'], message: expect.stringContaining('metadata must be a mapping') },
    ]);
  });

  it('rejects each metadata value that is not text, with its path', () => {
    const { issues } = check(`${valid}\nmetadata:\n  author: me\n  version: 1.0\n  internal: true\n  tags: [a, b]`);
    expect(issues).toEqual([
      { file: 'SKILL.md', path: ['metadata', 'version'], message: 'metadata values must be text: quote it ("1")' },
      { file: 'SKILL.md', path: ['metadata', 'internal'], message: 'metadata values must be text: quote it ("true")' },
      { file: 'SKILL.md', path: ['metadata', 'tags'], message: 'metadata values must be text: quote it' },
    ]);
  });
});

describe('checkSkillConformance: warnings and collecting', () => {
  it('warns about keys the specification does not define, in order, and accepts them', () => {
    const result = check(`${valid}\nauthor: me\nallowed_tools: Read\nversion: 2`);
    expect(result.issues).toEqual([]);
    expect(result.warnings).toEqual([
      expect.stringMatching(/^"author" is not an Agent Skills front-matter key; .*metadata/),
      '"allowed_tools" is not an Agent Skills front-matter key; did you mean "allowed-tools"?',
      expect.stringMatching(/^"version" is not an Agent Skills front-matter key/),
    ]);
  });

  it('points the old top-level Skillpress keys to metadata', () => {
    const { warnings } = check(`${valid}\ncategory: documents\nslug: pdf-tools\ndependencies:\n  other: ^1.0.0`);
    expect(warnings).toEqual([
      expect.stringContaining('"category" at the top level'),
      expect.stringContaining('"slug" at the top level'),
      expect.stringContaining('"dependencies" at the top level'),
    ]);
  });

  it('lists every problem of the front matter, not only the first', () => {
    const { issues, warnings } = check('name: PDF Tools\ndescription: ""\nlicense: 1\ncompatibility: [x]\nmetadata:\n  a: 1\nallowed-tools: [1]\ncolour: blue');
    expect(issues.map((issue) => issue.path)).toEqual([['name'], ['description'], ['license'], ['allowed-tools'], ['compatibility'], ['metadata', 'a']]);
    expect(warnings).toHaveLength(1);
  });
});

describe('discoveryDescription', () => {
  it('is the SKILL.md description of conforming files', () => {
    expect(discoveryDescription([skillMd(valid)], 'pdf-tools')).toBe('Extracts text and tables from PDF files.');
  });

  it('is undefined when anything else is wrong', () => {
    expect(discoveryDescription([skillMd(valid)], 'other-slug')).toBeUndefined();
  });
});
