import { foldConfusables } from '../normalise/confusables.ts';
import { hasInvisible, stripInvisible } from '../normalise/invisible.ts';

/**
 * A file's text as the rules read it: logical lines (a shell `\` or PowerShell backtick
 * continuation joins the next line, so a command split over lines is read whole), each marked
 * as code or prose (Markdown outside fenced blocks is prose), with a matching form that has
 * invisible characters, compatibility forms (fullwidth letters) and shell quoting tricks
 * (`c''url`, `${IFS}`) undone.
 */

export type FileKind = 'markdown' | 'html' | 'code';

export interface LineContext {
  /** 1-based number of the (first) physical line. */
  number: number;
  /** The line as written (joined with its continuations). */
  raw: string;
  /** The line as the rules match it. */
  text: string;
  /** Code: a script, or a fenced block in Markdown. Prose: Markdown text around it. */
  code: boolean;
  /** The raw line has an invisible or bidi character (most lines do not, and skip those rules). */
  invisible: boolean;
}

const PROSE_EXTENSIONS = /\.(?:md|markdown|mdx|mdown|txt|rst|adoc)$/i;
const HTML_EXTENSIONS = /\.(?:html?|xhtml|svg)$/i;

/** Markdown and plain text are prose; a file without an extension is prose unless it has a shebang. */
export function fileKindOf(filename: string, text: string): FileKind {
  if (PROSE_EXTENSIONS.test(filename)) return 'markdown';
  if (HTML_EXTENSIONS.test(filename)) return 'html';
  const base = filename.slice(filename.lastIndexOf('/') + 1);
  return base.includes('.') || text.startsWith('#!') ? 'code' : 'markdown';
}

/** The longest chain of continued lines joined into one; longer chains are read in pieces. */
const MAX_CONTINUATIONS = 20;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export function splitLines(text: string): string[] {
  return text.split(/\r?\n/);
}

/** Which physical lines are inside fenced code blocks (Markdown) or code (any other kind). */
export function codeLines(lines: readonly string[], kind: FileKind): boolean[] {
  if (kind !== 'markdown') return lines.map(() => kind === 'code');
  const code: boolean[] = [];
  let fence: string | null = null;
  for (const line of lines) {
    const m = FENCE.exec(line);
    if (fence === null) {
      code.push(false);
      if (m) fence = m[1]!;
    } else if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length && line.trim() === m[1]) {
      code.push(false);
      fence = null;
    } else code.push(true);
  }
  return code;
}

/**
 * Joins continued lines: a trailing backslash in code, and a trailing backtick in PowerShell
 * (elsewhere a trailing backtick closes inline code or a template string).
 */
export function logicalLines(lines: readonly string[], code: readonly boolean[], powershell = false): LineContext[] {
  const continued = powershell ? /[\\`]\s*$/ : /\\\s*$/;
  const out: LineContext[] = [];
  for (let i = 0; i < lines.length; i++) {
    const first = i;
    let raw = lines[i]!;
    while (code[i] && i + 1 < lines.length && i - first < MAX_CONTINUATIONS && continued.test(raw.slice(-4))) {
      raw = raw.replace(continued, ' ') + lines[++i]!;
    }
    // Invisible characters are outside ASCII: a line with nothing the matching form undoes has none.
    const disguised = mayBeDisguised(raw);
    const invisible = disguised && hasInvisible(raw);
    out.push({
      number: first + 1,
      raw,
      text: disguised ? matchingForm(raw) : raw,
      code: code[first] ?? true,
      invisible,
    });
  }
  return out;
}

/**
 * Whether a line holds something its matching form undoes (a character outside ASCII, an empty
 * quote pair, `IFS`, a quoted piece touching a word); a line without any is its own matching
 * form. The glued piece, the costly search, is looked for only on lines with a quote.
 */
function mayBeDisguised(raw: string): boolean {
  return (
    NON_ASCII.test(raw) ||
    raw.includes("''") ||
    raw.includes('""') ||
    raw.includes('IFS') ||
    ((raw.includes("'") || raw.includes('"')) && GLUED_QUOTE.test(raw))
  );
}
const NON_ASCII = /[^\x00-\x7f]/;
/** A quoted piece touching a word on either side: `c"u"rl`, `"cu"rl`, `cu"rl"`. */
const GLUED_QUOTE = /\w(["'])[\w./-]{1,20}\1|(["'])[\w./-]{1,20}\2\w/;
const GLUED_PIECE = /(?<=\w)(["'])([\w./-]{1,20})\1|(["'])([\w./-]{1,20})\3(?=\w)/g;
/** Pieces joined at most this many times over: `'w'"g"et` takes two (each join makes the next piece touch a word). */
const MAX_GLUE_ROUNDS = 4;

/** What the rules match: the line without the disguises that do not change what runs. */
export function matchingForm(raw: string): string {
  let text = stripInvisible(raw);
  // NFKC folds fullwidth and other compatibility letters (ｃｕｒｌ) to ASCII, then lookalikes from other
  // scripts (Cyrillic с) are folded; ASCII needs neither.
  if (/[^\x00-\x7f]/.test(text)) text = foldConfusables(text.normalize('NFKC'));
  if (text.includes("''") || text.includes('""')) text = text.replace(/(?<=\w)(?:''|"")(?=\w)/g, '');
  // A quoted piece touching a word is part of it, as the shell reads it: c"u"rl, "cu"rl and cu"rl"
  // are curl, "s"h is sh. Joining one piece may make the next touch a word: 'w'"g"et.
  for (let round = 0; round < MAX_GLUE_ROUNDS && GLUED_QUOTE.test(text); round++) {
    text = text.replace(GLUED_PIECE, (_, _q, inner?: string, _q2?: string, inner2?: string) => inner ?? inner2 ?? '');
  }
  if (text.includes('IFS')) text = text.replace(/\$\{IFS\}|\$IFS\b/g, ' ');
  return text;
}

/** The logical line that starts on physical line `number`, if one does (`lines` in order, as logicalLines gives them). */
export function lineNumbered(lines: readonly LineContext[], number: number): LineContext | undefined {
  let lo = 0;
  let hi = lines.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = lines[mid]!.number;
    if (at === number) return lines[mid];
    if (at < number) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** Offsets where each physical line starts, to turn an offset into a line number. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** The 1-based line holding `offset`. */
export function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

export interface FencedBlock {
  /** The info string's first word, lower-cased ('' when the fence has none). */
  tag: string;
  /** 1-based lines of the block's first and last content lines. */
  first: number;
  last: number;
}

/** The fenced code blocks of a Markdown file, with their language tags. */
export function fencedBlocks(lines: readonly string[]): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { fence: string; tag: string; first: number } | null = null;
  lines.forEach((line, i) => {
    const m = FENCE.exec(line);
    if (!open) {
      if (m)
        open = {
          fence: m[1]!,
          tag: (
            line
              .slice(m[0].length)
              .trim()
              .split(/[\s{,]/)[0] ?? ''
          ).toLowerCase(),
          first: i + 2,
        };
    } else if (m && m[1]![0] === open.fence[0] && m[1]!.length >= open.fence.length && line.trim() === m[1]) {
      if (i + 1 >= open.first) blocks.push({ tag: open.tag, first: open.first, last: i });
      open = null;
    }
  });
  return blocks;
}
