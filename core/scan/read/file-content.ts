import { isUtf8 } from 'node:buffer';

/**
 * Decides whether a file is text the scanner reads as written or a binary whose readable runs it
 * reads instead. The decision is made on the content, never on a prefix: a script that opens with
 * `GIF89a=1` or holds one NUL byte is still text (the shell still runs it), and a binary is only
 * named by its magic number once its bytes show it really is one. Nothing escapes the scan
 * either way: a binary's printable runs are read like a script (`strings` does the same), so a
 * shell script behind a PNG header, or text after a block of junk, is found.
 */

export type BinaryFormat = 'image' | 'font' | 'archive' | 'document' | 'media' | 'database' | 'wasm' | 'native-executable' | 'unknown';

export type FileContent =
  | { kind: 'text'; text: string }
  /** `strings`: the file's printable ASCII runs, other bytes blanked, line breaks kept (so line numbers hold). */
  | { kind: 'binary'; format: BinaryFormat; strings: string };

const utf8Lossy = new TextDecoder('utf-8');
const utf16le = new TextDecoder('utf-16le');
const utf16be = new TextDecoder('utf-16be');

/** How much of a file the UTF-16 test looks at; enough to judge, bounded for big files. */
const SAMPLE_BYTES = 64 * 1024;
/** Text has almost no bytes that are neither UTF-8 nor whitespace; a few (a stray NUL, a bad byte) do not make it binary. */
const MAX_BINARY_SHARE = 0.05;
/** Shorter printable runs in a binary are noise (`strings` uses 4 too). */
const MIN_RUN = 4;

export function readFileContent(bytes: Uint8Array): FileContent {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { kind: 'text', text: utf16le.decode(bytes.subarray(2)) };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { kind: 'text', text: utf16be.decode(bytes.subarray(2)) };
  if (looksLikeUtf16le(bytes)) return { kind: 'text', text: utf16le.decode(bytes) };
  // Most files are valid UTF-8 without a control character: no byte counts against them, and the
  // runtime's own checks say so faster than counting byte by byte.
  if (isUtf8(bytes)) {
    const text = utf8Lossy.decode(bytes);
    if (!CONTROL.test(text) && !isNativeExecutable(bytes)) return { kind: 'text', text };
  }
  if (binaryShare(bytes) <= MAX_BINARY_SHARE && !isNativeExecutable(bytes)) return { kind: 'text', text: utf8Lossy.decode(bytes) };
  return { kind: 'binary', format: binaryFormat(bytes) ?? 'unknown', strings: printableRuns(bytes) };
}

/**
 * The share of bytes that text does not have: control characters other than whitespace and
 * escape, and bytes that are not part of a well-formed UTF-8 sequence. Counted over the whole
 * file, so junk appended after a script, or a script after junk, is weighed in full.
 */
/** The characters that count as binary in text that is valid UTF-8 (binaryShare's control bytes). */
const CONTROL = /[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]/;

function binaryShare(bytes: Uint8Array): number {
  if (bytes.length === 0) return 0;
  let bad = 0;
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    if (b < 0x80) {
      if (b < 0x20 ? !(b === 0x09 || b === 0x0a || b === 0x0b || b === 0x0c || b === 0x0d || b === 0x1b) : b === 0x7f) bad++;
      i++;
      continue;
    }
    const length = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    let ok = length > 0 && i + length <= bytes.length;
    for (let k = 1; ok && k < length; k++) ok = (bytes[i + k]! & 0xc0) === 0x80;
    if (ok) i += length;
    else {
      bad++;
      i++;
    }
  }
  return bad / bytes.length;
}

/** The printable ASCII runs of a binary, at least MIN_RUN long, everything else a space; newlines stay. */
function printableRuns(bytes: Uint8Array): string {
  const out = new Uint8Array(bytes.length);
  let runStart = 0;
  const close = (end: number) => {
    if (end - runStart < MIN_RUN) out.fill(0x20, runStart, end);
  };
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0x0a) {
      close(i);
      out[i] = 0x0a;
      runStart = i + 1;
    } else if ((b >= 0x20 && b < 0x7f) || b === 0x09) out[i] = b;
    else {
      close(i);
      out[i] = 0x20;
      runStart = i + 1;
    }
  }
  close(bytes.length);
  return new TextDecoder('latin1').decode(out);
}

function startsWith(bytes: Uint8Array, magic: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + magic.length) return false;
  return magic.every((b, i) => bytes[offset + i] === b);
}

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** Magic numbers of the binary formats a skill plausibly ships, by what they are. */
const MAGIC: ReadonlyArray<{ format: BinaryFormat; magic: readonly number[]; offset?: number }> = [
  { format: 'image', magic: [0x89, 0x50, 0x4e, 0x47] },
  { format: 'image', magic: [0xff, 0xd8, 0xff] },
  { format: 'image', magic: ascii('GIF8') },
  // RIFF holds WebP images, WAV sound and AVI video alike.
  { format: 'media', magic: ascii('RIFF') },
  { format: 'image', magic: [0x00, 0x00, 0x01, 0x00] },
  { format: 'image', magic: ascii('II*\0') },
  { format: 'image', magic: ascii('MM\0*') },
  { format: 'font', magic: ascii('wOFF') },
  { format: 'font', magic: ascii('wOF2') },
  { format: 'font', magic: [0x00, 0x01, 0x00, 0x00] },
  { format: 'font', magic: ascii('OTTO') },
  { format: 'font', magic: ascii('ttcf') },
  { format: 'archive', magic: ascii('PK\x03\x04') },
  { format: 'archive', magic: ascii('PK\x05\x06') },
  { format: 'archive', magic: [0x1f, 0x8b] },
  { format: 'archive', magic: ascii('BZh') },
  { format: 'archive', magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] },
  { format: 'archive', magic: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] },
  { format: 'archive', magic: ascii('Rar!') },
  { format: 'archive', magic: ascii('ustar'), offset: 257 },
  { format: 'archive', magic: [0x28, 0xb5, 0x2f, 0xfd] },
  { format: 'document', magic: ascii('%PDF-') },
  { format: 'document', magic: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1] },
  { format: 'media', magic: ascii('ID3') },
  { format: 'media', magic: ascii('OggS') },
  { format: 'media', magic: ascii('fLaC') },
  { format: 'media', magic: ascii('ftyp'), offset: 4 },
  { format: 'database', magic: ascii('SQLite format 3\0') },
  { format: 'wasm', magic: [0x00, 0x61, 0x73, 0x6d] },
];

/** The binary format named by the file's first bytes, or null when none is recognised. */
export function binaryFormat(bytes: Uint8Array): BinaryFormat | null {
  if (isNativeExecutable(bytes)) return 'native-executable';
  return MAGIC.find((m) => startsWith(bytes, m.magic, m.offset))?.format ?? null;
}

/** ELF, Mach-O (thin or universal) and Windows PE programs and libraries. */
export function isNativeExecutable(bytes: Uint8Array): boolean {
  if (startsWith(bytes, [0x7f, 0x45, 0x4c, 0x46])) return true;
  const machO = [
    [0xfe, 0xed, 0xfa, 0xce],
    [0xfe, 0xed, 0xfa, 0xcf],
    [0xce, 0xfa, 0xed, 0xfe],
    [0xcf, 0xfa, 0xed, 0xfe],
  ];
  if (machO.some((m) => startsWith(bytes, m))) return true;
  // A universal Mach-O shares 0xCAFEBABE with Java classes; its next word is a small count of
  // architectures where a class file has its version (45 and up).
  if (startsWith(bytes, [0xca, 0xfe, 0xba, 0xbe]) && bytes.length >= 8) {
    const count = ((bytes[4]! << 24) | (bytes[5]! << 16) | (bytes[6]! << 8) | bytes[7]!) >>> 0;
    return count > 0 && count < 20;
  }
  if (startsWith(bytes, ascii('MZ')) && bytes.length >= 0x40) {
    const peOffset = bytes[0x3c]! | (bytes[0x3d]! << 8) | (bytes[0x3e]! << 16) | (bytes[0x3f]! << 24);
    return peOffset > 0 && startsWith(bytes, ascii('PE\0\0'), peOffset);
  }
  return false;
}

/** PowerShell and Windows editors write UTF-16LE without a BOM: ASCII text with every other byte 0. */
function looksLikeUtf16le(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, SAMPLE_BYTES) & ~1;
  if (n < 8) return false;
  let zeroHigh = 0;
  let printableLow = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i + 1] === 0) zeroHigh++;
    if (isPrintableAscii(bytes[i]!)) printableLow++;
  }
  const pairs = n / 2;
  return zeroHigh / pairs > 0.9 && printableLow / pairs > 0.9;
}

function isPrintableAscii(b: number): boolean {
  return (b >= 0x20 && b < 0x7f) || b === 0x09 || b === 0x0a || b === 0x0d;
}
