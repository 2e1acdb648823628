import { limits } from './limits.ts';

/**
 * File names inside a skill are relative POSIX paths that are safe to join under any install
 * folder on any OS (DESIGN.md §6). Returns the reason a name is refused, or null when it is fine.
 */
export function filenameProblem(filename: string): string | null {
  if (filename.length === 0) return 'must not be empty';
  if (filename.length > limits.filenameChars) return `must be at most ${limits.filenameChars} characters`;
  if (filename.startsWith('/')) return 'must be relative (no leading /)';
  if (filename.includes('\\')) return 'must use / as the separator (no \\)';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(filename)) return 'must not contain control characters';
  if (/^[a-zA-Z]:/.test(filename)) return 'must not start with a drive letter';
  for (const segment of filename.split('/')) {
    if (segment === '') return 'must not contain empty segments (//) or end with /';
    if (segment === '..') return 'must not contain .. segments';
    if (segment === '.') return 'must not contain . segments';
  }
  return null;
}

/** Index of the first file whose name repeats an earlier one ignoring case, or -1. */
export function duplicateFilenameIndex(filenames: string[]): number {
  const seen = new Set<string>();
  for (const [index, name] of filenames.entries()) {
    const folded = name.toLowerCase();
    if (seen.has(folded)) return index;
    seen.add(folded);
  }
  return -1;
}
