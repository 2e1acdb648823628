import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { localImportKey } from '#scripts/local/import-key';

describe("npm start's import key", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('is made at the first start, readable by its owner only, and the same at every later start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillpress-data-'));
    dirs.push(dir);
    const key = localImportKey(dir);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(dir, 'import-key')).mode & 0o777).toBe(0o600);
    expect(localImportKey(dir)).toBe(key);
  });
});
