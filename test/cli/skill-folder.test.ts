import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSkillFolder } from '#cli/skill-folder';
import { skillMetadata } from '#cli/skill-metadata';

/** What `publish` and `version` read from a folder, with the registry's own Agent Skills check. */

const md = (frontMatter: string, body = '# Pretty JSON\n') => `---\n${frontMatter}\n---\n${body}`;
const files = (source: string, more: Record<string, string> = {}) =>
  [['SKILL.md', source] as const, ...Object.entries(more)].map(([filename, content]) => ({ filename, bytes: Buffer.from(content), executable: false }));

describe('a folder’s publishing facts', () => {
  it('takes the slug from name, the display name from the first heading, and its own keys from metadata', () => {
    const facts = skillMetadata(
      files(
        md(
          'name: pretty-json\ndescription: Formats JSON.\nmetadata:\n  category: Dev Tools\n  dependencies: helper@^1.0.0, other@1.2.0',
          '\nIntro\n\n# Pretty JSON  \n## Usage\n',
        ),
      ),
    );
    expect(facts).toEqual({
      slug: 'pretty-json',
      name: 'Pretty JSON',
      description: 'Formats JSON.',
      category: 'dev-tools',
      dependencies: { helper: '^1.0.0', other: '1.2.0' },
      warnings: [],
    });
    expect(skillMetadata(files(md('name: pretty-json\ndescription: d', 'No heading.'))).name).toBe('pretty-json');
  });

  it('reads a description written as a folded or literal block as the one line the registry lists', () => {
    expect(skillMetadata(files(md('name: pretty-json\ndescription: >\n  Formats JSON files.\n  Use when JSON is mentioned.'))).description).toBe(
      'Formats JSON files. Use when JSON is mentioned.',
    );
    expect(skillMetadata(files(md('name: pretty-json\ndescription: |\n  Formats JSON.\n\n  Sorts keys.\n'))).description).toBe('Formats JSON. Sorts keys.');
  });

  it('accepts top-level category and dependencies in the forms other tools write, as the registry does, and says they are not read', () => {
    const facts = skillMetadata(files(md('name: pretty-json\ndescription: d\ncategory: Security & Testing\ndependencies:\n  - python3\n  - jq')));
    expect(facts).toMatchObject({ slug: 'pretty-json', dependencies: {} });
    expect(facts.category).toBeUndefined();
    expect(facts.warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/^category is not read: /), expect.stringMatching(/^dependencies is not read: /)]),
    );
  });

  it('reads the old top-level keys with one deprecation warning each', () => {
    const facts = skillMetadata(files(md('name: pretty-json\ndescription: d\ncategory: writing\ndependencies:\n  helper: ^1.0.0')));
    expect(facts).toMatchObject({ category: 'writing', dependencies: { helper: '^1.0.0' } });
    expect(facts.warnings).toEqual([expect.stringContaining('"category" at the top level'), expect.stringContaining('"dependencies" at the top level')]);
  });

  it('refuses what the registry would refuse, with every problem, as invalid_skill', () => {
    const refuse = (source: string, slug?: string) => {
      try {
        skillMetadata(files(source), slug);
      } catch (error) {
        return error as { code: string; options: { details: { issues: { path?: unknown[]; message: string }[] } } };
      }
      throw new Error('accepted');
    };
    const error = refuse(md('name: Pretty JSON\ndependencies: [a]'));
    expect(error.code).toBe('invalid_skill');
    expect(error.options.details.issues.map((i) => i.path)).toEqual([['name'], ['description']]);
    expect(refuse('# no front matter').options.details.issues).toEqual([expect.objectContaining({ file: 'SKILL.md' })]);
    expect(refuse(md('name: pretty-json\ndescription: d'), 'other').options.details.issues[0]!.message).toBe(
      `name "pretty-json" must be the skill's slug, "other"`,
    );
    // A key named like an Object member is a bad slug, never one read as a dependency.
    const proto = skillMetadata(files(md('name: x\ndescription: d\ndependencies:\n  __proto__: "*"')));
    expect(proto.dependencies).toEqual({});
    expect(proto.warnings).toContainEqual(expect.stringContaining('"__proto__" is not a skill slug'));
  });
});

describe('reading a folder', () => {
  const root = mkdtempSync(join(tmpdir(), 'skillpress-folder-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('sends a file with an executable bit as executable, and only such files', async () => {
    mkdirSync(join(root, 'scripts'));
    writeFileSync(join(root, 'SKILL.md'), md('name: run-it\ndescription: Runs it.'));
    writeFileSync(join(root, 'scripts/run.sh'), '#!/bin/sh\n');
    writeFileSync(join(root, 'scripts/lib.sh'), 'x=1\n');
    chmodSync(join(root, 'scripts/run.sh'), 0o750);
    chmodSync(join(root, 'scripts/lib.sh'), 0o640);
    const folder = await readSkillFolder(root);
    expect(folder.files.map((f) => [f.filename, f.executable ?? false])).toEqual([
      ['SKILL.md', false],
      ['scripts/lib.sh', false],
      ['scripts/run.sh', true],
    ]);
  });

  it("follows a link inside the folder, sending its target under the link's name", async () => {
    const dir = join(root, 'linked');
    mkdirSync(join(dir, 'source/shared'), { recursive: true });
    writeFileSync(join(dir, 'source/skill.md'), md('name: linked\ndescription: Linked.'));
    writeFileSync(join(dir, 'source/shared/notes.md'), 'notes\n');
    symlinkSync('source/skill.md', join(dir, 'SKILL.md'));
    symlinkSync('source/shared', join(dir, 'docs'));
    // Ignored, so never sent and never looked at, wherever it leads.
    writeFileSync(join(dir, '.gitignore'), '.env\n');
    symlinkSync('../../elsewhere/.env', join(dir, '.env'));
    const folder = await readSkillFolder(dir);
    expect(folder.slug).toBe('linked');
    expect(folder.files.map((f) => [f.filename, f.content])).toEqual([
      ['.gitignore', '.env\n'],
      ['SKILL.md', md('name: linked\ndescription: Linked.')],
      ['docs/notes.md', 'notes\n'],
      ['source/shared/notes.md', 'notes\n'],
      ['source/skill.md', md('name: linked\ndescription: Linked.')],
    ]);
    expect(folder.skipped).toEqual([]);
  });

  it('refuses, by name, a link that leads outside the folder, back into a folder it is in, or nowhere', async () => {
    const refused = async (name: string, link: (dir: string) => void) => {
      const dir = join(root, name);
      mkdirSync(join(dir, 'scripts'), { recursive: true });
      writeFileSync(join(dir, 'SKILL.md'), md(`name: ${name}\ndescription: d`));
      writeFileSync(join(root, 'secret.txt'), 'not part of any skill\n');
      link(dir);
      return readSkillFolder(dir).then(
        () => expect.unreachable(`${name} was read`),
        (error: { code: string; message: string }) => error,
      );
    };
    const outside = await refused('outside', (dir) => symlinkSync('../../secret.txt', join(dir, 'scripts/key.txt')));
    expect(outside).toMatchObject({
      code: 'invalid_skill',
      message: "scripts/key.txt is a link to ../../secret.txt, outside the skill's folder, so it cannot be published",
    });
    const loop = await refused('loop', (dir) => symlinkSync('..', join(dir, 'scripts/up')));
    expect(loop).toMatchObject({ code: 'invalid_skill', message: 'scripts/up is a link to .., a folder it is in (a loop), so it cannot be published' });
    const cycle = await refused('cycle', (dir) => {
      symlinkSync('b', join(dir, 'a'));
      symlinkSync('a', join(dir, 'b'));
    });
    expect(cycle).toMatchObject({ code: 'invalid_skill', message: 'a is a link that loops back on itself, so it cannot be published' });
    const dangling = await refused('dangling', (dir) => symlinkSync('gone.md', join(dir, 'README.md')));
    expect(dangling).toMatchObject({ code: 'invalid_skill', message: 'README.md is a link to gone.md, which does not exist, so it cannot be published' });
  });
});
