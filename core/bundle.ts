import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';

/**
 * A version's files as bytes, and the canonical bundle document built from them. The bundle's
 * bytes are what `/bundles/<slug>/<version>.json` serves and what `integrity` hashes, so a
 * client can check any delivery against the registry without trusting the transport.
 */

export type Encoding = 'utf8' | 'base64';

export interface FileBytes {
  filename: string;
  bytes: Uint8Array;
  /** How the author sent it; binary content is always delivered as base64. */
  encoding: Encoding;
  /** Installed with its executable bits set (mode 0755 in archives); absent means false. */
  executable?: boolean;
}

export interface FileEntry {
  filename: string;
  size: number;
  sha256: string;
}

export interface WireFile {
  filename: string;
  content: string;
  encoding?: 'base64';
  /** Present only when true, so the bundles of files without the flag keep their bytes and integrity. */
  executable?: true;
}

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function sha256Base64(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('base64');
}

/** Decodes a file as sent over the API. Returns null when base64 content is malformed. */
export function decodeFile(file: { filename: string; content: string; encoding?: Encoding; executable?: boolean }): FileBytes | null {
  const encoding = file.encoding ?? 'utf8';
  const executable = file.executable === true ? { executable: true } : {};
  if (encoding === 'utf8') return { filename: file.filename, bytes: Buffer.from(file.content, 'utf8'), encoding, ...executable };
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(file.content) || file.content.length % 4 !== 0) return null;
  return { filename: file.filename, bytes: Buffer.from(file.content, 'base64'), encoding, ...executable };
}

// `ignoreBOM`: by default a TextDecoder drops a leading byte-order mark, and a file that begins
// with one (as many Office-made skills do) would be delivered one character short of what its
// published SHA-256 says.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The wire form of a file: text when it was sent as text and is valid UTF-8, else base64; with
 * `executable: true` when the flag is set.
 */
export function toWireFile(file: FileBytes): WireFile {
  const executable = file.executable ? { executable: true as const } : {};
  if (file.encoding === 'utf8') {
    try {
      return { filename: file.filename, content: utf8.decode(file.bytes), ...executable };
    } catch {
      // fall through: bytes that are not UTF-8 can only travel as base64
    }
  }
  return { filename: file.filename, content: Buffer.from(file.bytes).toString('base64'), encoding: 'base64', ...executable };
}

export function byFilename<T extends { filename: string }>(a: T, b: T): number {
  return a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0;
}

/**
 * The canonical bundle bytes: `{"files":[{filename, content, encoding?, executable?}]}` sorted by
 * filename. The executable flag is part of them (a changed mode is a changed skill), and is
 * written only when set, so a version without it has the bytes it always had.
 */
export function bundleBytes(files: FileBytes[]): string {
  return canonicalJson({ files: files.map(toWireFile).sort(byFilename) });
}

/** Subresource-integrity style digest of the canonical bundle: `sha256-<base64>`. */
export function bundleIntegrity(files: FileBytes[]): string {
  return `sha256-${sha256Base64(bundleBytes(files))}`;
}

/** The members of a delivery besides its files. */
export interface DeliveryHeader {
  skillId: string;
  slug: string;
  version: string;
}

/**
 * A delivery body in canonical form: `{"files":[…],"skillId":…,"slug":…,"version":…}`, keys
 * sorted. Its bytes up to the end of `files` are the version's bundle but for the bundle's
 * closing brace, which {@link deliveredBundleIntegrity} relies on.
 */
export function deliveryJson(header: DeliveryHeader, files: WireFile[]): string {
  return canonicalJson({ skillId: header.skillId, slug: header.slug, version: header.version, files });
}

const EMPTY_FILES = '{"files":[]';

/**
 * The integrity of the bundle inside a delivery body written by {@link deliveryJson}, computed
 * over the body's bytes as received; undefined when the body does not end with `header`'s
 * members in that form. Hashing the bytes before those members, plus the closing brace, gives
 * the bundle's digest without decoding or serialising any file again. When it equals the
 * published integrity, the body's `files` are the published bundle's, byte for byte: the
 * members after them are the ones built here from `header`, and none of them is `files`.
 */
export function deliveredBundleIntegrity(body: Uint8Array, header: DeliveryHeader): string | undefined {
  const members = Buffer.from(deliveryJson(header, []).slice(EMPTY_FILES.length));
  const start = body.byteLength - members.byteLength;
  if (start < EMPTY_FILES.length || !Buffer.from(body.buffer, body.byteOffset + start, members.byteLength).equals(members)) return undefined;
  const hash = createHash('sha256').update(body.subarray(0, start)).update('}');
  return `sha256-${hash.digest('base64')}`;
}

export function fileEntries(files: FileBytes[]): FileEntry[] {
  return files.map((f) => ({ filename: f.filename, size: f.bytes.byteLength, sha256: sha256Hex(f.bytes) })).sort(byFilename);
}
