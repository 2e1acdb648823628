import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeFile, fileEntries } from '#core/bundle';
import { commitStaged, discardStaged, folderMatches, removeFolder, stageFiles } from '#cli/install-tree';

const root = mkdtempSync(join(tmpdir(), 'skillpress-tree-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const files = (content: string) => [decodeFile({ filename: 'SKILL.md', content })!, decodeFile({ filename: 'scripts/run.sh', content: 'echo hi' })!];

describe('install folders', () => {
  it('stages beside the target and swaps the whole folder in, leaving no temporary folders', async () => {
    const target = join(root, 'a', '.skills', 'x');
    await commitStaged([await stageFiles('x', target, files('v1'))]);
    expect(readFileSync(join(target, 'SKILL.md'), 'utf8')).toBe('v1');
    writeFileSync(join(target, 'stale.txt'), 'from v1');
    await commitStaged([await stageFiles('x', target, files('v2'))]);
    expect(readdirSync(target).sort()).toEqual(['SKILL.md', 'scripts']);
    expect(readdirSync(join(root, 'a', '.skills'))).toEqual(['x']);
  });

  it('leaves the previous install untouched when a staged install is discarded', async () => {
    const target = join(root, 'b', 'x');
    await commitStaged([await stageFiles('x', target, files('old'))]);
    const staged = await stageFiles('x', target, files('new'));
    await discardStaged([staged]);
    expect(readFileSync(join(target, 'SKILL.md'), 'utf8')).toBe('old');
    expect(readdirSync(join(root, 'b'))).toEqual(['x']);
  });

  it('tells an intact folder from a modified, extended, linked or missing one', async () => {
    const target = join(root, 'c', 'x');
    await commitStaged([await stageFiles('x', target, files('v1'))]);
    const entries = fileEntries(files('v1'));
    expect(await folderMatches(target, entries)).toBe(true);
    writeFileSync(join(target, 'extra'), '');
    expect(await folderMatches(target, entries)).toBe(false);
    rmSync(join(target, 'extra'));
    writeFileSync(join(target, 'SKILL.md'), 'v2');
    expect(await folderMatches(target, entries)).toBe(false);
    writeFileSync(join(target, 'SKILL.md'), 'v1');
    symlinkSync('/etc/passwd', join(target, 'link'));
    expect(await folderMatches(target, entries)).toBe(false);
    expect(await removeFolder(target)).toBe(true);
    expect(await folderMatches(target, entries)).toBe(false);
    expect(await removeFolder(target)).toBe(false);
  });

  it('refuses to replace a target whose parent is not a folder, changing nothing', async () => {
    mkdirSync(join(root, 'd'));
    writeFileSync(join(root, 'd', 'file'), 'keep');
    await expect(stageFiles('x', join(root, 'd', 'file', 'x'), files('v'))).rejects.toMatchObject({ code: 'io_error' });
    expect(readFileSync(join(root, 'd', 'file'), 'utf8')).toBe('keep');
  });
});
