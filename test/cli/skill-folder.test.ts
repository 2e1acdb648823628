import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
    expect(error.options.details.issues.map((i) => i.path)).toEqual([['name'], ['description'], ['dependencies']]);
    expect(refuse('# no front matter').options.details.issues).toEqual([expect.objectContaining({ file: 'SKILL.md' })]);
    expect(refuse(md('name: pretty-json\ndescription: d'), 'other').options.details.issues[0]!.message).toBe(
      `name "pretty-json" must be the skill's slug, "other"`,
    );
    // A key named like an Object member is a bad slug, never a silently dropped one.
    expect(refuse(md('name: x\ndescription: d\ndependencies:\n  __proto__: "*"')).options.details.issues[0]!.path).toEqual(['dependencies', '__proto__']);
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
});
