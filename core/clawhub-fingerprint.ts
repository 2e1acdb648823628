import { sha256Hex } from './bundle.ts';
import { byPublishedDesc, type VersionFacts } from './registry-document.ts';

/**
 * The fingerprints the ClawHub CLI computes over a skill folder it installed or is about to
 * publish, to ask the registry which version the folder holds (`GET /api/v1/resolve`). The
 * registry records them for every version (docs/api.md §14.4), so each must come out exactly as
 * its client's `hashSkillFiles` does on the files our ZIP extracts to. Two generations of the
 * client list files differently, so a version has up to two:
 *
 * - both list no path segment starting with `.` (their walks skip those, and so their own
 *   `.clawhub/origin.json`), nothing inside `node_modules`, nothing the extraction drops (a path
 *   holding `..` or `\`); `clawdhub` 0.3 lists only extensions on its list of text files,
 *   `clawhub` 0.23 every file;
 * - sorted with `localeCompare` (the client's default locale; `en` here, which orders ASCII
 *   paths as every common locale does: ignoring case first, so `scripts/` before `SKILL.md`);
 * - the SHA-256 (hex) of the lines `<path>:<sha256 hex>` joined with `\n`.
 *
 * Needing only names and digests, it is computed from a version item without reading content.
 * A skill whose own `.gitignore` or `.clawdhubignore` hides some of its files from the client
 * fingerprints differently on disk: the client then reports local changes.
 */
export function clawhubFingerprint(files: readonly { filename: string; sha256: string }[], client: ClawhubClient = 'clawdhub'): string {
  collator ??= new Intl.Collator('en');
  const listed = files.filter((file) => listedByClient(file.filename, client)).sort((a, b) => collator!.compare(a.filename, b.filename));
  return sha256Hex(listed.map((file) => `${file.filename}:${file.sha256}`).join('\n'));
}

/** The client generations, by the files they list: `clawdhub` 0.3 its text files, `clawhub` 0.23 all of them. */
export type ClawhubClient = 'clawdhub' | 'clawhub';

/** A version's fingerprints, one per client generation (one when its files are all text). */
export function clawhubFingerprints(files: readonly { filename: string; sha256: string }[]): string[] {
  return [...new Set([clawhubFingerprint(files, 'clawdhub'), clawhubFingerprint(files, 'clawhub')])];
}

/**
 * Which version each fingerprint of a skill's versions names: the last published (in
 * {@link byPublishedDesc}'s order), when several versions have the same listed files (a
 * re-release). Resolve answers with it, from the recorded items or from the versions themselves.
 */
export function fingerprintedVersions(versions: readonly Pick<VersionFacts, 'version' | 'publishedAt' | 'files'>[]): Map<string, string> {
  const named = new Map<string, string>();
  for (const v of [...versions].sort(byPublishedDesc)) {
    for (const fingerprint of clawhubFingerprints(v.files)) if (!named.has(fingerprint)) named.set(fingerprint, v.version);
  }
  return named;
}

/**
 * `String.prototype.localeCompare` under `en`, made with the first fingerprint: making it loads
 * ICU's collation data, tens of milliseconds that every Lambda importing this module would
 * otherwise pay at its cold start, whether its request fingerprints anything or not.
 */
let collator: Intl.Collator | undefined;

function listedByClient(path: string, client: ClawhubClient): boolean {
  if (path.includes('..') || path.includes('\\')) return false;
  if (path.split('/').some((segment) => segment.startsWith('.') || segment === 'node_modules')) return false;
  if (client === 'clawhub') return true;
  // The client takes what follows the path's last dot, even across a `/`.
  return TEXT_EXTENSIONS.has(path.split('.').at(-1)!.toLowerCase());
}

/** `clawdhub` 0.3's `TEXT_FILE_EXTENSIONS` (its `schema/textFiles.js`): what it uploads and hashes. */
const TEXT_EXTENSIONS = new Set([
  'md',
  'mdx',
  'txt',
  'json',
  'json5',
  'yaml',
  'yml',
  'toml',
  'js',
  'cjs',
  'mjs',
  'ts',
  'tsx',
  'jsx',
  'py',
  'sh',
  'rb',
  'go',
  'rs',
  'swift',
  'kt',
  'java',
  'cs',
  'cpp',
  'c',
  'h',
  'hpp',
  'sql',
  'csv',
  'ini',
  'cfg',
  'env',
  'xml',
  'html',
  'css',
  'scss',
  'sass',
  'svg',
]);
