import { sha256Hex } from './bundle.ts';
import { byPublishedDesc, type VersionFacts } from './registry-document.ts';

/**
 * The fingerprint the ClawHub CLI (`clawdhub`, npm `clawdhub` 0.3.0) computes over a skill folder
 * it installed, to ask the registry which version the folder holds (`GET /api/v1/resolve`). The
 * registry records it for every version (docs/api.md §14.4), so it must come out exactly
 * as the client's `hashSkillFiles(listTextFiles(folder))` does on the files our ZIP extracts to:
 *
 * - only files the client lists: no path segment starting with `.` (its walk skips those, and so
 *   its own `.clawdhub/origin.json`), none inside `node_modules`, none the extraction drops (a
 *   path holding `..` or `\`), and only extensions on its list of text files;
 * - sorted with `localeCompare` (the client's default locale; `en` here, which orders ASCII
 *   paths as every common locale does: ignoring case first, so `scripts/` before `SKILL.md`);
 * - the SHA-256 (hex) of the lines `<path>:<sha256 hex>` joined with `\n`.
 *
 * Needing only names and digests, it is computed from a version item without reading content.
 * A skill whose own `.gitignore` or `.clawdhubignore` hides some of its files from the client
 * fingerprints differently on disk: the client then reports local changes.
 */
export function clawhubFingerprint(files: readonly { filename: string; sha256: string }[]): string {
  const listed = files.filter((file) => listedByClient(file.filename)).sort((a, b) => collator.compare(a.filename, b.filename));
  return sha256Hex(listed.map((file) => `${file.filename}:${file.sha256}`).join('\n'));
}

/**
 * Which version each fingerprint of a skill's versions names: the last published (in
 * {@link byPublishedDesc}'s order), when several versions have the same listed files (a
 * re-release). Resolve answers with it, from the recorded items or from the versions themselves.
 */
export function fingerprintedVersions(versions: readonly Pick<VersionFacts, 'version' | 'publishedAt' | 'files'>[]): Map<string, string> {
  const named = new Map<string, string>();
  for (const v of [...versions].sort(byPublishedDesc)) {
    const fingerprint = clawhubFingerprint(v.files);
    if (!named.has(fingerprint)) named.set(fingerprint, v.version);
  }
  return named;
}

/** `String.prototype.localeCompare` under `en`, made once. */
const collator = new Intl.Collator('en');

function listedByClient(path: string): boolean {
  if (path.includes('..') || path.includes('\\')) return false;
  if (path.split('/').some((segment) => segment.startsWith('.') || segment === 'node_modules')) return false;
  // The client takes what follows the path's last dot, even across a `/`.
  return TEXT_EXTENSIONS.has(path.split('.').at(-1)!.toLowerCase());
}

/** The client's `TEXT_FILE_EXTENSIONS` (its `schema/textFiles.js`): what it uploads and hashes. */
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
