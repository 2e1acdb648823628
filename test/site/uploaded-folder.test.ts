import { describe, expect, it } from 'vitest';
import { uploadedFolder } from '../../site/src/lib/uploaded-folder.ts';

/** What the web upload sends of a dropped or picked folder or `.zip`: the one skill folder in it, as the CLI would send it. */
const text = (path: string, content: string) => ({ path, bytes: new TextEncoder().encode(content) });
const skillMd = '---\nname: pdf-tools\ndescription: d\n---\n';

describe('uploadedFolder', () => {
  it("names the files from the skill's folder, leaving out what the CLI never sends", () => {
    expect(
      uploadedFolder([
        text('pdf-tools/SKILL.md', skillMd),
        text('pdf-tools/docs/guide.md', '# Guide\n'),
        text('pdf-tools/.git/HEAD', 'ref: refs/heads/main\n'),
        text('pdf-tools/node_modules/x/index.js', ''),
        text('pdf-tools/docs/', ''),
      ]),
    ).toEqual({
      folder: 'pdf-tools',
      files: [
        { filename: 'SKILL.md', content: skillMd },
        { filename: 'docs/guide.md', content: '# Guide\n' },
      ],
    });
  });

  it('takes a SKILL.md at the root as it is, and the skill folder inside a zip of a repository', () => {
    expect(uploadedFolder([text('SKILL.md', skillMd)])).toEqual({ folder: '', files: [{ filename: 'SKILL.md', content: skillMd }] });
    expect(uploadedFolder([text('repo-main/README.md', '# Repo\n'), text('repo-main/skills/pdf-tools/SKILL.md', skillMd)])).toEqual({
      folder: 'repo-main/skills/pdf-tools',
      files: [{ filename: 'SKILL.md', content: skillMd }],
    });
  });

  it('sends bytes that are not UTF-8 text, or hold a NUL, as base64, and a file that starts with #! as executable', () => {
    const { files } = uploadedFolder([
      text('s/SKILL.md', skillMd),
      { path: 's/logo.png', bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) },
      { path: 's/nul.txt', bytes: new Uint8Array([0x61, 0x00]) },
      text('s/run.sh', '#!/bin/sh\necho hi\n'),
    ]) as { files: unknown[] };
    expect(files.slice(1)).toEqual([
      { filename: 'logo.png', content: 'iVBORw==', encoding: 'base64' },
      { filename: 'nul.txt', content: 'YQA=', encoding: 'base64' },
      { filename: 'run.sh', content: '#!/bin/sh\necho hi\n', executable: true },
    ]);
  });

  it('says what is wrong with a folder without a skill, or with several', () => {
    expect(uploadedFolder([text('notes/README.md', '# hi\n')])).toEqual({ problem: expect.stringContaining('no SKILL.md') });
    expect(uploadedFolder([text('a/SKILL.md', skillMd), text('b/SKILL.md', skillMd)])).toEqual({
      problem: expect.stringContaining('holds 2 skills (a, b): upload one skill folder at a time'),
    });
  });
});
