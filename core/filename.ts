import { limits } from './limits.ts';
import { utf8Length } from './text.ts';

/**
 * The one file every skill has, at its root, spelled exactly so (docs/agent-skills.md). Here,
 * beside the other file-name rules, rather than with the front matter: whoever needs only the
 * name need not load the YAML parser.
 */
export const SKILL_FILE = 'SKILL.md';

/**
 * File names inside a skill are relative POSIX paths that are safe to join under any install
 * folder on any OS (docs/api.md, "Files"): nothing that climbs out, nothing a Windows, macOS or
 * Linux file system would refuse or silently alter. Returns the reason a name is refused, or null.
 */
export function filenameProblem(filename: string): string | null {
  if (filename.length === 0) return 'must not be empty';
  if (filename.length > limits.filenameChars) return `must be at most ${limits.filenameChars} characters`;
  if (!filename.isWellFormed()) return 'must be well-formed Unicode (no lone surrogates)';
  if (filename.startsWith('/')) return 'must be relative (no leading /)';
  if (filename.includes('\\')) return 'must use / as the separator (no \\)';
  if (/[\u0000-\u001f\u007f-\u009f]/.test(filename)) return 'must not contain control characters';
  if (/^[a-zA-Z]:/.test(filename)) return 'must not start with a drive letter';
  if (WINDOWS_RESERVED_CHARACTERS.test(filename)) return 'must not contain any of : < > " | ? * (refused by Windows or macOS)';
  for (const segment of filename.split('/')) {
    if (segment === '') return 'must not contain empty segments (//) or end with /';
    if (segment === '..') return 'must not contain .. segments';
    if (segment === '.') return 'must not contain . segments';
    if (/[. ]$/.test(segment)) return 'must not have a segment ending in a dot or a space (Windows drops them)';
    if (WINDOWS_DEVICE_NAME.test(segment)) return `must not use the Windows device name ${segment.split('.')[0]} as a file or folder name`;
    // ext4, APFS and most others hold 255 bytes per name (NTFS 255 UTF-16 units, never fewer).
    const bytes = utf8Length(segment);
    if (bytes > limits.filenameSegmentBytes)
      return `must have at most ${limits.filenameSegmentBytes} bytes (UTF-8) in each folder or file name; "${[...segment].slice(0, 20).join('')}…" has ${bytes}`;
  }
  return null;
}

const WINDOWS_RESERVED_CHARACTERS = /[:<>"|?*]/;
/** CON, PRN, AUX, NUL, COM1–9 and LPT1–9 name devices on Windows, with any extension and in any case. */
const WINDOWS_DEVICE_NAME = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/i;

/**
 * Two names that a case-insensitive or normalising file system (Windows, macOS) would store as
 * one file: compared after Unicode NFC and lower-casing.
 */
function folded(filename: string): string {
  return filename.normalize('NFC').toLowerCase();
}

/**
 * The first name that cannot live beside the earlier ones in one folder tree: it repeats an
 * earlier name (ignoring case and Unicode normalisation), or one of the two is a folder of the
 * other (`a` and `a/b`). Returns its index and why, or undefined when the set can be written.
 */
export function filenameConflict(filenames: string[]): { index: number; message: string } | undefined {
  const files = new Set<string>();
  const folders = new Set<string>();
  for (const [index, name] of filenames.entries()) {
    const key = folded(name);
    if (files.has(key)) return { index, message: 'filename repeats another file (names are compared ignoring case and Unicode normalisation)' };
    if (folders.has(key)) return { index, message: 'filename is also a folder of another file' };
    const segments = key.split('/');
    for (let end = 1; end < segments.length; end++) {
      const folder = segments.slice(0, end).join('/');
      if (files.has(folder)) return { index, message: `filename lies inside ${folder}, which is a file of this version` };
      folders.add(folder);
    }
    files.add(key);
  }
  return undefined;
}
