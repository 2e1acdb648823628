/**
 * Characters a human reader does not see but an agent does: bidirectional controls that reorder
 * what is displayed (Trojan Source), zero-width characters that split keywords or encode bits,
 * and the Unicode tag and variation-selector blocks that can smuggle whole sentences. The scanner
 * reports them and matches every other rule on the text with them removed, so
 * `ig\u200Bnore previous instructions` is still an override.
 */

const BIDI = new Set([0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]);
/** Invisible and zero-width characters worth reporting; Hangul fillers render as blanks too. */
const ZERO_WIDTH = new Set([0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x180e, 0x115f, 0x1160, 0x3164, 0xffa0]);
const ZWNJ = 0x200c;
const ZWJ = 0x200d;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;

const isTag = (cp: number) => cp >= 0xe0000 && cp <= 0xe007f;
const isVariationSelector = (cp: number) => (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef);

/** Cheap test that lets almost every line skip the per-character walk. */
// biome-ignore lint/suspicious/noMisleadingCharacterClass: each invisible character is matched on its own, combining ones included
const PROBE = /[\u00ad\u034f\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\u3164\ufe00-\ufe0f\ufeff\uffa0]|\udb40[\udc00-\uddef]/;
// biome-ignore lint/suspicious/noMisleadingCharacterClass: as above
const STRIP = /[\u00ad\u034f\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\u3164\ufe00-\ufe0f\ufeff\uffa0]|\udb40[\udc00-\uddef]/g;

/** A run of this many invisible characters in a row carries data, not formatting. */
const PAYLOAD_RUN = 8;
/** Runs of variation selectors this long encode bytes; an emoji takes one. */
const SELECTOR_RUN = 3;

export interface InvisibleMarks {
  /** Code points of bidirectional controls on the line. */
  bidi: number[];
  /** Code points of zero-width characters that are not part of an emoji or a script's joining. */
  zeroWidth: number[];
  /** Tag characters outside a flag sequence, or runs of variation selectors or zero-width characters. */
  payload: boolean;
}

export function hasInvisible(line: string): boolean {
  return PROBE.test(line);
}

/** The line without any invisible character, for matching the other rules. */
export function stripInvisible(line: string): string {
  return PROBE.test(line) ? line.replace(STRIP, '') : line;
}

/** The marks of the last line asked about: four rules and the decoder ask about the same line in turn. */
let last: { line: string; marks: InvisibleMarks } | undefined;

/** Which invisible characters a line carries, with the legitimate uses left out. */
export function invisibleMarks(line: string): InvisibleMarks {
  if (last?.line === line) return last.marks;
  const marks = markLine(line);
  last = { line, marks };
  return marks;
}

function markLine(line: string): InvisibleMarks {
  const marks: InvisibleMarks = { bidi: [], zeroWidth: [], payload: false };
  if (!PROBE.test(line)) return marks;
  const cps = Array.from(line, (c) => c.codePointAt(0)!);
  let zeroRun = 0;
  let selectorRun = 0;
  for (let i = 0; i < cps.length; i++) {
    const cp = cps[i]!;
    if (BIDI.has(cp)) marks.bidi.push(cp);
    if (ZERO_WIDTH.has(cp)) {
      zeroRun++;
      if (!isJoiningUse(cps, i)) marks.zeroWidth.push(cp);
    } else zeroRun = 0;
    selectorRun = isVariationSelector(cp) ? selectorRun + 1 : 0;
    if (zeroRun >= PAYLOAD_RUN || selectorRun >= SELECTOR_RUN) marks.payload = true;
    if (isTag(cp)) {
      const end = flagSequenceEnd(cps, i);
      if (end === -1) marks.payload = true;
      else i = end;
    }
  }
  return marks;
}

/**
 * ZWJ and ZWNJ between two visible non-ASCII characters build emoji sequences (👨‍👩‍👧) and
 * shape Persian, Arabic and Indic words; between ASCII letters they only split words.
 */
function isJoiningUse(cps: number[], i: number): boolean {
  const cp = cps[i]!;
  if (cp !== ZWJ && cp !== ZWNJ) return false;
  let before = i - 1;
  while (before >= 0 && isVariationSelector(cps[before]!)) before--;
  const prev = cps[before];
  const next = cps[i + 1];
  const visibleNonAscii = (c: number | undefined) => c !== undefined && c > 0x7f && !ZERO_WIDTH.has(c) && !BIDI.has(c) && !isTag(c);
  return visibleNonAscii(prev) && visibleNonAscii(next);
}

/** Subdivision flags (🏴 + tag letters + cancel tag) are the one legitimate use of tags. */
function flagSequenceEnd(cps: number[], i: number): number {
  if (cps[i - 1] !== BLACK_FLAG) return -1;
  for (let j = i; j < cps.length && j < i + 8; j++) {
    if (cps[j] === CANCEL_TAG) return j;
    if (!isTag(cps[j]!)) return -1;
  }
  return -1;
}

const utf8Lossy = new TextDecoder('utf-8');

/**
 * Text smuggled in invisible characters: tag characters mirror ASCII, and variation selectors
 * carry one byte each (VS1–16 the values 0–15, VS17–256 the values 16–255). Returns '' when the
 * line smuggles nothing.
 */
export function smuggledText(line: string): string {
  if (!PROBE.test(line)) return '';
  let tags = '';
  const bytes: number[] = [];
  for (const c of line) {
    const cp = c.codePointAt(0)!;
    if (cp >= 0xe0020 && cp <= 0xe007e) tags += String.fromCharCode(cp - 0xe0000);
    else if (cp >= 0xfe00 && cp <= 0xfe0f) bytes.push(cp - 0xfe00);
    else if (cp >= 0xe0100 && cp <= 0xe01ef) bytes.push(cp - 0xe0100 + 16);
  }
  const selectors = bytes.length >= SELECTOR_RUN ? utf8Lossy.decode(Uint8Array.from(bytes)) : '';
  return [tags.length >= 4 ? tags : '', selectors].filter(Boolean).join('\n');
}

/** `U+202E` style names, for messages that must not quote content. */
export function codePointNames(cps: readonly number[]): string {
  return [...new Set(cps)].map((cp) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`).join(', ');
}
