import { createRequire } from 'node:module';
import type * as Zlib from 'node:zlib';

/**
 * Undoes the encodings attackers wrap payloads in, so that the rules can read what would run:
 * base64 (standard and URL-safe, wrapped over several lines, gzip- or zlib-compressed, UTF-16LE
 * as PowerShell's `-EncodedCommand` takes it), hex strings, `\x` / `\u` / `%` escapes and
 * character-code lists. Only what decodes to mostly printable text is returned: a PNG in a data
 * URI or a SHA-256 digest decodes to bytes, not text, and is left alone.
 */

/** How a decoded text was hidden; the scanner adds text smuggled in invisible characters to the ones decoded here. */
export type Encoding = 'base64' | 'hex' | 'escapes' | 'char codes' | 'invisible characters';

export interface Decoded {
  encoding: Encoding;
  text: string;
}

/**
 * Decoded characters a file may produce in all, at every depth together: this much, or twice the
 * file's own size if that is more. Proportional to the file, so that a decoy (500 KB of harmless
 * base64 in front of the payload) costs the attacker as many bytes as it costs the budget, and
 * the cost of decoding stays linear in the size of the version.
 */
export const DECODE_BUDGET = 256 * 1024;
/** The longest run decoded: a file's whole size (1 MiB) in base64. */
const MAX_RUN_CHARS = 1.4 * 1024 * 1024;
/** Shorter runs are identifiers and hashes far more often than payloads. */
const MIN_BASE64 = 20;

export interface Budget {
  remaining: number;
}

export function newBudget(fileChars = 0): Budget {
  return { remaining: Math.max(DECODE_BUDGET, 2 * fileChars) };
}

const BASE64_RUN = /[A-Za-z0-9+/_-]{20,}={0,2}/g;
const HEX_RUN = /(?:[0-9a-fA-F]{2}){12,}/g;
const ESCAPE_RUN = /(?:\\x[0-9a-fA-F]{2}){8,}|(?:\\u[0-9a-fA-F]{4}){8,}|(?:%[0-9a-fA-F]{2}){8,}/g;
const CHAR_CODE_RUN =
  /fromCharCode\(\s*(?:\d{1,7}\s*,\s*){5,}\d{1,7}\s*\)|\[\s*(?:(?:9|1[03]|3[2-9]|[4-9]\d|1[01]\d|12[0-6])\s*,\s*){7,}(?:9|1[03]|3[2-9]|[4-9]\d|1[01]\d|12[0-6])\s*\]|(?:chr\(\s*\d{1,7}\s*\)\s*\+\s*){5,}chr\(\s*\d{1,7}\s*\)|(?:\[char\]\s*\d{1,7}\s*[+,]\s*){5,}\[char\]\s*\d{1,7}/gi;

/** Every encoded run on one line that decodes to text, in the order they appear. */
const BASE64_CHAR = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-') BASE64_CHAR[c.charCodeAt(0)] = 1;

/**
 * Whether a line has something one of the runs above needs; most prose has none and skips the
 * four searches. One pass for the base64 alphabet, which covers hex too.
 */
function mayHoldRun(line: string): boolean {
  return hasBase64Run(line, MIN_BASE64) || mayHoldEscapes(line) || /fromCharCode|chr\(|\[char\]|\[\s{0,4}\d{2,3}\s{0,4},/i.test(line);
}

/** What an escape run cannot do without. */
function mayHoldEscapes(line: string): boolean {
  return line.includes('\\x') || line.includes('\\u') || line.includes('%');
}

const HEX_CHAR = new Uint8Array(128);
for (const c of '0123456789abcdefABCDEF') HEX_CHAR[c.charCodeAt(0)] = 1;

const inClass = (table: Uint8Array, line: string, i: number) => {
  const c = line.charCodeAt(i);
  return c < 128 && table[c] === 1;
};

/**
 * Whether `line` has `length` characters of `table`'s class in a row. It looks at every
 * `length`th character and only around those in the class: prose, with a space every few
 * letters, is mostly skipped.
 */
function hasRun(line: string, length: number, table: Uint8Array): boolean {
  // Any run not yet ruled out holds the character at `probe` or lies wholly after it.
  let probe = length - 1;
  while (probe < line.length) {
    if (!inClass(table, line, probe)) {
      probe += length;
      continue;
    }
    let start = probe;
    while (start > 0 && probe - start + 1 < length && inClass(table, line, start - 1)) start--;
    let end = probe + 1;
    while (end < line.length && end - start < length && inClass(table, line, end)) end++;
    if (end - start >= length) return true;
    // The run around the probe ends before `end`, which is not in the class (or is the end).
    probe = end + length;
  }
  return false;
}

/** Whether `line` has `length` characters of the base64 alphabet (standard or URL-safe) in a row. */
export function hasBase64Run(line: string, length: number): boolean {
  return hasRun(line, length, BASE64_CHAR);
}

export function decodeLine(line: string, budget: Budget): Decoded[] {
  if (budget.remaining <= 0 || line.length < 12 || !mayHoldRun(line)) return [];
  const found: Array<Decoded & { at: number }> = [];
  const add = (encoding: Encoding, at: number, text: string | null) => {
    if (text === null || budget.remaining <= 0) return;
    budget.remaining -= text.length;
    found.push({ encoding, at, text });
  };
  for (const m of line.matchAll(BASE64_RUN)) add('base64', m.index, decodeBase64(m[0]));
  // Each search only where the line has what its runs cannot do without: they are costly on a
  // long line of base64, which holds none of them.
  if (hasRun(line, 24, HEX_CHAR)) for (const m of line.matchAll(HEX_RUN)) add('hex', m.index, textOf(hexBytes(m[0])));
  if (mayHoldEscapes(line)) for (const m of line.matchAll(ESCAPE_RUN)) add('escapes', m.index, textOf(escapeBytes(m[0])));
  if (line.includes('[') || /fromCharCode|chr\(/i.test(line))
    for (const m of line.matchAll(CHAR_CODE_RUN)) add('char codes', m.index, printableText(charCodes(m[0])));
  return found.sort((a, b) => a.at - b.at).map(({ encoding, text }) => ({ encoding, text }));
}

const WRAPPED_LINE = /^\s*[A-Za-z0-9+/]{40,}={0,2}\s*$/;
const WRAPPED_LAST = /^\s*[A-Za-z0-9+/]{4,}={0,2}\s*$/;

/**
 * Base64 wrapped over consecutive lines (as `base64` prints it, 76 columns) is one payload; each
 * line alone would decode to a fragment. Returns the 0-based index of each block's first line.
 */
export function decodeWrappedBase64(lines: readonly string[], budget: Budget): Array<{ index: number; decoded: Decoded }> {
  const blocks: Array<{ index: number; decoded: Decoded }> = [];
  for (let i = 0; i < lines.length && budget.remaining > 0; i++) {
    if (!WRAPPED_LINE.test(lines[i]!) || !WRAPPED_LAST.test(lines[i + 1] ?? '')) continue;
    let end = i + 1;
    while (end + 1 < lines.length && WRAPPED_LINE.test(lines[end]!) && WRAPPED_LAST.test(lines[end + 1]!)) end++;
    const joined = lines
      .slice(i, end + 1)
      .join('')
      .replace(/\s/g, '');
    const text = decodeBase64(joined);
    if (text !== null) {
      budget.remaining -= text.length;
      blocks.push({ index: i, decoded: { encoding: 'base64', text } });
    }
    i = end;
  }
  return blocks;
}

export function decodeBase64(run: string): string | null {
  if (run.length < MIN_BASE64) return null;
  // Node's decoder reads the URL-safe alphabet too (`-` and `_` as `+` and `/`).
  let end = run.length;
  while (end > 0 && run.charCodeAt(end - 1) === 0x3d) end--;
  let body = run.slice(0, Math.min(end, MAX_RUN_CHARS));
  if (body.length % 4 === 1) body = body.slice(0, -1);
  return textOf(Buffer.from(body, 'base64'));
}

function hexBytes(run: string): Uint8Array {
  return Buffer.from(run.slice(0, MAX_RUN_CHARS), 'hex');
}

function escapeBytes(run: string): Uint8Array {
  const head = run.slice(0, MAX_RUN_CHARS);
  if (head.startsWith('\\u'))
    return Buffer.from(
      head.replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
      'utf8',
    );
  return Buffer.from(head.replace(/\\x|%/g, ''), 'hex');
}

function charCodes(run: string): string {
  const numbers = run.slice(0, MAX_RUN_CHARS).match(/\d{1,7}/g) ?? [];
  // Spreading is bounded: a call takes only so many arguments.
  return String.fromCodePoint(
    ...numbers
      .slice(0, 4096)
      .map(Number)
      .filter((n) => n <= 0x10ffff),
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf16le = new TextDecoder('utf-16le');

/** Bytes as text when they are text: UTF-8, UTF-16LE, or either behind gzip/zlib. */
function textOf(bytes: Uint8Array, depth = 0): string | null {
  if (bytes.length < 8) return null;
  if (depth === 0 && isCompressed(bytes)) {
    const inflated = inflate(bytes);
    return inflated ? textOf(inflated, 1) : null;
  }
  if (looksUtf16le(bytes)) return printableText(utf16le.decode(bytes));
  // Most runs that look like base64 are identifiers or paths that decode to noise; counting
  // printable bytes first spares the decoder (and its exceptions) for them.
  if (!mostlyPrintable(bytes)) return null;
  try {
    return printableText(utf8.decode(bytes));
  } catch {
    return null;
  }
}

function isCompressed(bytes: Uint8Array): boolean {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return true;
  return bytes[0] === 0x78 && (bytes[1] === 0x01 || bytes[1] === 0x5e || bytes[1] === 0x9c || bytes[1] === 0xda);
}

/**
 * node:zlib, required the first time a compressed payload turns up rather than imported: the
 * CLI bundles the scanner, and an import would load zlib at every start of every command.
 */
let zlib: typeof Zlib | undefined;

function inflate(bytes: Uint8Array): Uint8Array | null {
  const options = { maxOutputLength: MAX_RUN_CHARS };
  zlib ??= createRequire(import.meta.url)('node:zlib') as typeof Zlib;
  try {
    return bytes[0] === 0x1f ? zlib.gunzipSync(bytes, options) : zlib.inflateSync(bytes, options);
  } catch {
    return null;
  }
}

function looksUtf16le(bytes: Uint8Array): boolean {
  if (bytes.length < 8) return false;
  let zeros = 0;
  for (let i = 1; i < bytes.length; i += 2) if (bytes[i] === 0) zeros++;
  return zeros / Math.floor(bytes.length / 2) > 0.9;
}

function mostlyPrintable(bytes: Uint8Array): boolean {
  let printable = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if ((b >= 0x20 && b < 0x7f) || b === 0x09 || b === 0x0a || b === 0x0d) printable++;
  }
  return printable / bytes.length >= 0.85;
}

/** Text that is at least 85% printable ASCII; anything else is data that happened to decode. */
function printableText(text: string): string | null {
  if (text.length < 8) return null;
  let printable = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c === 0x09 || c === 0x0a || c === 0x0d) printable++;
  }
  return printable / text.length >= 0.85 ? text : null;
}
