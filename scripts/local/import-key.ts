import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The import key of `npm start` (docs/deploy.md, "Configure GitHub imports"): made at the first
 * start under `dataDir` (0600) and kept with the data, so the webhook secrets of the imports it
 * stores stay the same from one start to the next.
 */
export function localImportKey(dataDir: string): string {
  const path = join(dataDir, 'import-key');
  try {
    writeFileSync(path, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Made at an earlier start (or by another process starting now): that one is the key.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(path, 'utf8').trim();
}
