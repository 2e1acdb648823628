import { gunzipSync, inflateSync, unzlibSync } from 'fflate';
import type { HoneytokenHit } from '../effects/effect.ts';
import type { Honeytoken } from './honeytokens.ts';

/**
 * Finds planted secrets in bytes a version sent (or put in a command line, or wrote), however
 * they were wrapped. Each honeytoken is looked for as it is, reversed, in hex, and in base64 at
 * each of the three alignments it can have inside a longer encoded text (standard and URL-safe
 * alphabets); then the bytes are unwrapped (URL escapes, base64 and hex runs, gzip, zlib and
 * raw deflate streams, reversal, base32 runs such as DNS names carry) and searched again, three
 * layers deep within a budget, so base64 of gzip of a key is found as surely as the key.
 */

/** Layers unwrapped at most, and decoded bytes produced at most (four times the input, at least 1 MiB). */
const MAX_DEPTH = 3;
const MIN_BUDGET = 1024 * 1024;
/** Runs shorter than this are not decoded: a honeytoken's random part is at least 20 characters. */
const MIN_RUN = 24;
/** Compressed streams tried per view, at most (a run of random bytes holds many false headers). */
const MAX_STREAMS = 16;

const latin1 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

/** The middle of a base64 encoding of `value` after `offset` bytes of anything: the characters that depend on it alone. */
function base64Core(value: string, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), Buffer.from(value, 'latin1')]).toString('base64');
  const fullGroups = Math.floor((offset + value.length) / 3) * 4;
  return encoded.slice(offset === 0 ? 0 : 4, fullGroups);
}

/** The forms a honeytoken is looked for in, each named by the encoding it stands for. */
function needles(token: Honeytoken): Array<{ text: string; encoding: string[] }> {
  const hex = Buffer.from(token.value, 'latin1').toString('hex');
  const forms = [
    { text: token.value, encoding: [] },
    { text: [...token.value].reverse().join(''), encoding: ['reversed'] },
    { text: hex, encoding: ['hex'] },
    { text: hex.toUpperCase(), encoding: ['hex'] },
  ];
  for (const offset of [0, 1, 2]) {
    const core = base64Core(token.value, offset);
    forms.push({ text: core, encoding: ['base64'] });
    const urlSafe = core.replace(/\+/g, '-').replace(/\//g, '_');
    if (urlSafe !== core) forms.push({ text: urlSafe, encoding: ['base64url'] });
  }
  return forms;
}

type View = { text: string; layers: string[] };

function base32Decode(run: string): Uint8Array {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const c of run.toUpperCase()) {
    value = (value << 5) | alphabet.indexOf(c);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Uint8Array.from(out);
}

function tryInflate(inflate: (data: Uint8Array) => Uint8Array, data: Uint8Array): Uint8Array | null {
  try {
    return inflate(data);
  } catch {
    return null;
  }
}

/** What a view may be hiding, one layer down: each decoded part with the layer's name. */
function unwrap(view: View): View[] {
  const { text } = view;
  const found: Array<{ layer: string; bytes: Uint8Array | string }> = [];
  if (/%[0-9a-f]{2}/i.test(text)) {
    try {
      found.push({ layer: 'url', bytes: decodeURIComponent(text.replace(/\+/g, ' ')) });
    } catch {
      found.push({ layer: 'url', bytes: text.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16))) });
    }
  }
  if (!view.layers.includes('reversed')) found.push({ layer: 'reversed', bytes: [...text].reverse().join('') });
  for (const run of text.match(new RegExp(`[A-Za-z0-9+/_-]{${MIN_RUN},}={0,2}`, 'g')) ?? []) {
    found.push({ layer: 'base64', bytes: Buffer.from(run, 'base64') });
    if (/^[A-Za-z2-7]+=*$/.test(run)) found.push({ layer: 'base32', bytes: base32Decode(run.replace(/=+$/, '')) });
  }
  for (const run of text.match(new RegExp(`(?:[0-9a-fA-F]{2}){${MIN_RUN / 2},}`, 'g')) ?? []) found.push({ layer: 'hex', bytes: Buffer.from(run, 'hex') });
  const bytes = Buffer.from(text, 'latin1');
  let streams = 0;
  for (let at = bytes.indexOf(0x1f); at >= 0 && streams < MAX_STREAMS; at = bytes.indexOf(0x1f, at + 1)) {
    if (bytes[at + 1] !== 0x8b) continue;
    streams++;
    const out = tryInflate(gunzipSync, bytes.subarray(at));
    if (out) found.push({ layer: 'gzip', bytes: out });
  }
  for (let at = bytes.indexOf(0x78); at >= 0 && streams < MAX_STREAMS; at = bytes.indexOf(0x78, at + 1)) {
    if (![0x01, 0x5e, 0x9c, 0xda].includes(bytes[at + 1]!)) continue;
    streams++;
    const out = tryInflate(unzlibSync, bytes.subarray(at));
    if (out) found.push({ layer: 'zlib', bytes: out });
  }
  // Raw deflate has no header: tried where a message's body would start.
  const body = text.indexOf('\r\n\r\n');
  for (const at of new Set([0, body < 0 ? 0 : body + 4])) {
    const out = tryInflate(inflateSync, bytes.subarray(at));
    if (out?.length) found.push({ layer: 'deflate', bytes: out });
  }
  return found.map(({ layer, bytes: b }) => ({ text: typeof b === 'string' ? b : latin1(b), layers: [...view.layers, layer] }));
}

/** Every honeytoken found in `data`, once each, with the layers it was found under (outermost first). */
export function findHoneytokens(data: Uint8Array | string, tokens: readonly Honeytoken[]): HoneytokenHit[] {
  const start = typeof data === 'string' ? data : latin1(data);
  const forms = tokens.map((token) => ({ token, needles: needles(token) }));
  const hits = new Map<string, HoneytokenHit>();
  let budget = Math.max(MIN_BUDGET, 4 * start.length);
  let views: View[] = [{ text: start, layers: [] }];
  for (let depth = 0; depth <= MAX_DEPTH && views.length && hits.size < tokens.length; depth++) {
    for (const view of views) {
      for (const { token, needles: list } of forms) {
        if (hits.has(token.name)) continue;
        const needle = list.find((n) => view.text.includes(n.text));
        if (needle) hits.set(token.name, { token: token.name, class: token.class, encoding: [...view.layers, ...needle.encoding] });
      }
    }
    if (depth === MAX_DEPTH) break;
    const next: View[] = [];
    for (const view of views) {
      for (const child of unwrap(view)) {
        if (child.text.length === 0 || budget < child.text.length) continue;
        budget -= child.text.length;
        next.push(child);
      }
    }
    views = next;
  }
  return [...hits.values()];
}
