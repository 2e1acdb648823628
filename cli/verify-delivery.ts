import { byFilename, bundleIntegrity, deliveredBundleIntegrity, type FileBytes, type FileEntry, sha256Base64, sha256Hex } from '../core/bundle.ts';
import { filenameConflict, filenameProblem } from '../core/filename.ts';
import { CliError, integrityMismatch } from './cli-error.ts';

/**
 * The check between download and disk. A delivery is trusted only when it is byte for byte what
 * the registry (or the lockfile) published: the right skill and version, only safe file names,
 * every file's SHA-256 when it is known, and the canonical bundle's integrity. Nothing is written
 * before this passes, so a tampered or corrupted download never reaches an install folder.
 * Pure: the delivery's JSON in, the files' bytes and digests out. Each file is decoded and
 * hashed once; the digests go into the lockfile as they are. A delivery in canonical form is
 * checked against the integrity over the bytes it arrived as, rather than over a bundle made
 * again from its files (see deliveredBundleIntegrity); any other form is made again.
 */

export interface Expected {
  slug: string;
  version: string;
  /** `sha256-<base64>` of the canonical bundle. */
  integrity: string;
  /** Per-file digests: the registry's `files` for its current version, or the lockfile's. */
  files?: readonly FileEntry[];
}

export interface Verified {
  files: FileBytes[];
  /** Name, size and SHA-256 of each file, sorted by name. */
  entries: FileEntry[];
}

/** Checks `delivery` (parsed from `body`, when the caller kept the bytes it arrived as) against `expected`. */
export function verifyDelivery(delivery: unknown, expected: Expected, body?: Uint8Array): Verified {
  const who = `${expected.slug}@${expected.version}`;
  const wire = deliveredFiles(delivery, who);
  const { skillId, slug, version } = delivery as { skillId?: unknown; slug?: unknown; version?: unknown };
  // A large free version is answered with its bundle, `{files}` alone (docs/api.md §7.6): the
  // integrity, which the registry signed for this slug and version, says whether it is this one.
  const bundle = skillId === undefined && slug === undefined && version === undefined;
  if (!bundle && (slug !== expected.slug || version !== expected.version)) {
    throw integrityMismatch(`asked for ${who} but the server delivered ${String(slug)}@${String(version)}`);
  }

  for (const file of wire) {
    const problem = filenameProblem(file.filename);
    if (problem) {
      throw new CliError('unsafe_filename', `${who}: refusing the delivered file name ${JSON.stringify(file.filename.slice(0, 80))}: it ${problem}`);
    }
  }
  const conflict = filenameConflict(wire.map((f) => f.filename));
  if (conflict) {
    throw new CliError('unsafe_filename', `${who}: refusing the delivered file ${JSON.stringify(wire[conflict.index]!.filename)}: its ${conflict.message}`);
  }

  // The published bundle, byte for byte: its base64 is Node's own, and nothing needs making again.
  const received =
    body !== undefined &&
    (bundle
      ? `sha256-${sha256Base64(body)}` === expected.integrity
      : typeof skillId === 'string' && deliveredBundleIntegrity(body, { skillId, slug: expected.slug, version: expected.version }) === expected.integrity);
  const files = wire.map((file) => {
    const decoded = decodeDelivered(file, received);
    if (!decoded) throw integrityMismatch(`${who}: ${file.filename} is not valid base64`);
    return decoded;
  });
  const entries = files.map((f) => ({ filename: f.filename, size: f.bytes.byteLength, sha256: sha256Hex(f.bytes) }));

  if (expected.files) checkFileDigests(who, entries, expected.files);
  const actual = received ? expected.integrity : bundleIntegrity(files);
  if (actual !== expected.integrity) {
    throw integrityMismatch(`${who}: the downloaded content does not match the published integrity`, { expected: expected.integrity, actual });
  }
  return { files, entries: entries.sort(byFilename) };
}

/**
 * A delivered file's bytes, and its executable flag (part of the integrity, and of how it is
 * installed). Base64 must be exactly as the canonical bundle writes it (Node's own encoding,
 * padded), which decoding and encoding again checks unless the bundle's bytes were checked as
 * received (`canonical`); a pattern test over megabytes of base64 cost more than everything else
 * in a verification.
 */
function decodeDelivered(file: DeliveredFile, canonical: boolean): FileBytes | null {
  const executable = file.executable === true ? { executable: true } : {};
  if (file.encoding !== 'base64') return { filename: file.filename, bytes: Buffer.from(file.content, 'utf8'), encoding: 'utf8', ...executable };
  const bytes = Buffer.from(file.content, 'base64');
  return canonical || bytes.toString('base64') === file.content ? { filename: file.filename, bytes, encoding: 'base64', ...executable } : null;
}

interface DeliveredFile {
  filename: string;
  content: string;
  encoding?: 'base64' | 'utf8';
  executable?: boolean;
}

function deliveredFiles(delivery: unknown, who: string): DeliveredFile[] {
  const files = (delivery as { files?: unknown } | null)?.files;
  const wellFormed =
    Array.isArray(files) &&
    files.every(
      (f) =>
        f !== null &&
        typeof f === 'object' &&
        typeof f.filename === 'string' &&
        typeof f.content === 'string' &&
        (f.encoding === undefined || f.encoding === 'base64' || f.encoding === 'utf8') &&
        (f.executable === undefined || typeof f.executable === 'boolean'),
    );
  if (!wellFormed) throw new CliError('bad_response', `${who}: the delivery is not {files:[{filename, content, encoding?, executable?}]}`);
  return files;
}

function checkFileDigests(who: string, files: readonly FileEntry[], expected: readonly FileEntry[]): void {
  const byName = new Map(files.map((f) => [f.filename, f]));
  const missing = expected.filter((e) => !byName.has(e.filename)).map((e) => e.filename);
  const known = new Set(expected.map((e) => e.filename));
  const extra = files.filter((f) => !known.has(f.filename)).map((f) => f.filename);
  if (missing.length > 0 || extra.length > 0) {
    throw integrityMismatch(`${who}: the delivered file list differs from the published one`, { missing, unexpected: extra });
  }
  for (const entry of expected) {
    const actual = byName.get(entry.filename)!.sha256;
    if (actual !== entry.sha256) {
      throw integrityMismatch(`${who}: ${entry.filename} does not match its published SHA-256`, { file: entry.filename, expected: entry.sha256, actual });
    }
  }
}
