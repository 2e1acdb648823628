import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every path under `dir`, relative and `/`-separated, folders with a trailing `/`, sorted. */
export function fileTree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split('\\').join('/') + (entry.isDirectory() ? '/' : ''))
    .sort();
}
