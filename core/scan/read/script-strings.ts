/**
 * The script reader for Python, JavaScript (and TypeScript) and PowerShell: a tokenizer that
 * understands string literals, comments and concatenation, and folds what a program computes
 * from constants back into the string it computes. `'o' + 's'`, Python's `'.s' 'sh'`,
 * `'cexe'[::-1]`, `chr(99) + chr(117)`, `String.fromCharCode(99, 117)`, a name bound to a
 * constant string, `__import__('os')` and `getattr(m, 'sys' + 'tem')` become the strings and
 * names they stand for (`os.system`). Each source line where something was folded comes out
 * again, folded, for the rules to read.
 *
 * Budget: at most SCRIPT_BYTES of a file are tokenized; a folded string is at most MAX_STRING
 * characters, and at most MAX_CONSTANTS names are remembered.
 */

export type ScriptLanguage = 'python' | 'javascript' | 'powershell';

export interface FoldedLine {
  /** 1-based line of the source. */
  line: number;
  text: string;
}

const SCRIPT_BYTES = 256 * 1024;
const MAX_STRING = 4096;
const MAX_CONSTANTS = 512;

/** The script language a file is written in, by its name; null for any other. */
export function scriptLanguage(filename: string, fence?: string): ScriptLanguage | null {
  const tag = (fence ?? filename.slice(filename.lastIndexOf('.') + 1)).toLowerCase();
  if (tag === 'py' || tag === 'python' || tag === 'python3' || tag === 'pyw') return 'python';
  if (/^(?:js|mjs|cjs|jsx|ts|mts|cts|tsx|javascript|typescript|node)$/.test(tag)) return 'javascript';
  if (/^(?:ps1|psm1|psd1|powershell|pwsh)$/.test(tag)) return 'powershell';
  return null;
}

type Token = { kind: 'string'; value: string; line: number } | { kind: 'name' | 'number' | 'punct'; value: string; line: number; disguised?: boolean };

/** Python's string prefixes; `b` and `f` strings are read as their text. */
const PY_PREFIX = /^[rRbBuUfF]{1,2}$/;

function tokenize(source: string, language: ScriptLanguage): Token[] {
  const text = source.length > SCRIPT_BYTES ? source.slice(0, SCRIPT_BYTES) : source;
  const tokens: Token[] = [];
  let line = 1;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '\n') {
      line++;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    // Comments.
    if ((c === '#' && language !== 'javascript') || (c === '/' && text[i + 1] === '/' && language === 'javascript')) {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '*' && language === 'javascript') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? n : end + 2;
      for (let k = i; k < stop; k++) if (text[k] === '\n') line++;
      i = stop;
      continue;
    }
    if (c === '<' && text[i + 1] === '#' && language === 'powershell') {
      const end = text.indexOf('#>', i + 2);
      const stop = end === -1 ? n : end + 2;
      for (let k = i; k < stop; k++) if (text[k] === '\n') line++;
      i = stop;
      continue;
    }
    if (c === '"' || c === "'" || (c === '`' && language === 'javascript')) {
      const start = line;
      const triple = language === 'python' && text.startsWith(c.repeat(3), i);
      const quote = triple ? c.repeat(3) : c;
      const raw =
        tokens.length > 0 && tokens[tokens.length - 1]!.kind === 'name' && language === 'python' && PY_PREFIX.test(tokens[tokens.length - 1]!.value)
          ? /[rR]/.test(tokens.pop()!.value)
          : false;
      let j = i + quote.length;
      let value = '';
      const q = c.charCodeAt(0);
      while (j < n && !text.startsWith(quote, j)) {
        // Plain characters up to the next quote, line break, backslash or backtick, taken as one
        // piece (a string may be a whole file of base64; adding it a character at a time cost
        // more than the rest of the scan of it).
        let k = j;
        while (k < n) {
          const code = text.charCodeAt(k);
          if (code === q || code === 10 || code === 92 || code === 96) break;
          k++;
        }
        if (k > j) {
          if (value.length < MAX_STRING) value += text.slice(j, Math.min(k, j + MAX_STRING - value.length));
          j = k;
          continue;
        }
        const ch = text[j]!;
        if (ch === '\n') {
          line++;
          if (!triple && c !== '`') break;
        }
        if (ch === '\\' && !raw && language !== 'powershell' && j + 1 < n) {
          value += escapeValue(text, j);
          j += escapeLength(text, j);
          continue;
        }
        if (ch === '`' && language === 'powershell' && c === '"' && j + 1 < n) {
          value += text[j + 1];
          j += 2;
          continue;
        }
        if (value.length < MAX_STRING) value += ch;
        j++;
      }
      tokens.push({ kind: 'string', value, line: start });
      i = j + quote.length;
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      let j = i + 1;
      // PowerShell ignores a backtick before a letter: i`e`x is iex.
      while (j < n && (/[\w$]/.test(text[j]!) || (language === 'powershell' && text[j] === '`' && /[A-Za-z]/.test(text[j + 1] ?? '')))) j++;
      const name = text.slice(i, j);
      tokens.push({ kind: 'name', value: name.replace(/`/g, ''), line, ...(name.includes('`') ? { disguised: true } : {}) });
      i = j;
      continue;
    }
    if (/[0-9]/.test(c)) {
      let j = i + 1;
      while (j < n && /[\w.]/.test(text[j]!)) j++;
      tokens.push({ kind: 'number', value: text.slice(i, j), line });
      i = j;
      continue;
    }
    tokens.push({ kind: 'punct', value: c, line });
    i++;
  }
  return tokens;
}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', f: '\f', v: '\v' };

function escapeLength(text: string, j: number): number {
  const e = text[j + 1];
  if (e === 'x') return 4;
  if (e === 'u') return text[j + 2] === '{' ? text.indexOf('}', j) - j + 1 || 2 : 6;
  return 2;
}

function escapeValue(text: string, j: number): string {
  const e = text[j + 1]!;
  if (e === 'x') return String.fromCharCode(parseInt(text.slice(j + 2, j + 4), 16) || 0);
  if (e === 'u') {
    const hex = text[j + 2] === '{' ? text.slice(j + 3, text.indexOf('}', j)) : text.slice(j + 2, j + 6);
    const cp = parseInt(hex, 16);
    return Number.isFinite(cp) && cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
  }
  if (e === '\n') return '';
  return SIMPLE_ESCAPES[e] ?? e;
}

/** The source lines where the script computes a string or a name from constants, with what they compute. */
/** What folding needs to find anything: a concatenation, adjacent literals, a reversal, character codes, a dynamic import or lookup. */
const FOLDABLE = /["'`]\s{0,4}\+|\+\s{0,4}["'`]|["']\s{1,8}["']|\[::-1\]|\breverse\(|\bchr\(|fromCharCode|__import__|\bgetattr\(|\w`\w/;

export function foldStrings(source: string, language: ScriptLanguage): FoldedLine[] {
  if (!FOLDABLE.test(source.length > SCRIPT_BYTES ? source.slice(0, SCRIPT_BYTES) : source)) return [];
  const tokens = tokenize(source, language);
  const constants = new Map<string, string>();
  /** Names bound to what a fold revealed (`run = getattr(__builtins__, 'cexe'[::-1])`): a later `run(…)` is that call. */
  const aliases = new Map<string, string>();
  const alias = (value: string) => {
    const n = out.length;
    if (n >= 2 && is2(out[n - 1], '=') && out[n - 2]!.kind === 'name' && constants.size + aliases.size < MAX_CONSTANTS) aliases.set(out[n - 2]!.value, value);
  };
  const out: Token[] = [];
  const folded = new Set<number>();
  let i = 0;
  const str = (k: number) => tokens[k]?.kind === 'string';
  const is = (k: number, v: string) => tokens[k]?.value === v && tokens[k]?.kind !== 'string';
  /** The string an operand at k stands for, and where it ends; null when it is not constant. */
  const operand = (k: number): { value: string; end: number } | null => {
    const t = tokens[k];
    if (!t) return null;
    if (t.kind === 'string') {
      // 'abc'[::-1]
      if (is(k + 1, '[') && is(k + 2, ':') && is(k + 3, ':') && is(k + 4, '-') && tokens[k + 5]?.value === '1' && is(k + 6, ']'))
        return { value: [...t.value].reverse().join(''), end: k + 7 };
      // 'abc'.split('').reverse().join('')
      if (
        is(k + 1, '.') &&
        tokens[k + 2]?.value === 'split' &&
        is(k + 3, '(') &&
        str(k + 4) &&
        tokens[k + 4]!.value === '' &&
        is(k + 5, ')') &&
        is(k + 6, '.') &&
        tokens[k + 7]?.value === 'reverse'
      )
        return { value: [...t.value].reverse().join(''), end: k + 8 + (is(k + 8, '(') ? 2 : 0) + (is(k + 10, '.') ? 5 : 0) };
      return { value: t.value, end: k + 1 };
    }
    if (t.kind === 'name') {
      if (t.value === 'chr' && is(k + 1, '(') && tokens[k + 2]?.kind === 'number' && is(k + 3, ')'))
        return { value: codePoint(tokens[k + 2]!.value), end: k + 4 };
      if (t.value === 'String' && is(k + 1, '.') && tokens[k + 2]?.value === 'fromCharCode' && is(k + 3, '(')) {
        let j = k + 4;
        let value = '';
        while (tokens[j]?.kind === 'number') {
          value += codePoint(tokens[j]!.value);
          j += is(j + 1, ',') ? 2 : 1;
        }
        return is(j, ')') && value ? { value, end: j + 1 } : null;
      }
      if (t.value === '__import__' && is(k + 1, '(') && str(k + 2) && is(k + 3, ')')) return null;
      const known = constants.get(t.value);
      if (known !== undefined && !is(k + 1, '(') && !is(k + 1, '.') && !is(k - 1, '.')) return { value: known, end: k + 1 };
    }
    return null;
  };
  while (i < tokens.length) {
    const t = tokens[i]!;
    // __import__('os') is the module os.
    if (t.kind === 'name' && t.value === '__import__' && is(i + 1, '(')) {
      const inner = chain(i + 2);
      if (inner && is(inner.end, ')')) {
        alias(inner.value);
        out.push({ kind: 'name', value: inner.value, line: t.line });
        folded.add(t.line);
        i = inner.end + 1;
        continue;
      }
    }
    if (t.kind === 'name' && aliases.has(t.value) && is(i + 1, '(') && !is(i - 1, '.')) {
      out.push({ kind: 'name', value: aliases.get(t.value)!, line: t.line });
      folded.add(t.line);
      i++;
      continue;
    }
    // getattr(x, 'name') is x.name.
    if (t.kind === 'name' && t.value === 'getattr' && is(i + 1, '(')) {
      let target: Token | undefined = tokens[i + 2];
      let at = i + 3;
      if (target?.value === '__import__' && is(i + 3, '(')) {
        const inner = chain(i + 4);
        if (inner && is(inner.end, ')')) {
          target = { kind: 'name', value: inner.value, line: t.line };
          at = inner.end + 1;
        }
      }
      const attr = is(at, ',') ? chain(at + 1) : null;
      if (target && target.kind === 'name' && attr && is(attr.end, ')')) {
        const value = `${aliases.get(target.value) ?? target.value}.${attr.value}`;
        alias(value);
        out.push({ kind: 'name', value, line: t.line });
        folded.add(t.line);
        i = attr.end + 1;
        continue;
      }
    }
    const c = chain(i);
    if (c && c.end > i + 1) {
      out.push({ kind: 'string', value: c.value, line: t.line });
      folded.add(t.line);
      // name = <constant>: remembered for later concatenations.
      const assigned = out.length >= 3 && is2(out[out.length - 2], '=') && out[out.length - 3]!.kind === 'name' ? out[out.length - 3]!.value : null;
      if (assigned && constants.size < MAX_CONSTANTS) constants.set(assigned, c.value);
      i = c.end;
      continue;
    }
    if (
      t.kind === 'string' &&
      out.length >= 2 &&
      is2(out[out.length - 1], '=') &&
      out[out.length - 2]!.kind === 'name' &&
      (is(i + 1, ';') || tokens[i + 1]?.line !== t.line)
    ) {
      if (constants.size < MAX_CONSTANTS) constants.set(out[out.length - 2]!.value, t.value);
    }
    if ('disguised' in t) folded.add(t.line);
    out.push(t);
    i++;
  }
  return render(out, folded);

  /** A concatenation of constant operands from k, folded, when it has at least one. */
  function chain(k: number): { value: string; end: number } | null {
    const first = operand(k);
    if (!first) return null;
    let value = first.value;
    let end = first.end;
    for (;;) {
      // Python and C-like adjacency of literals: 'a' 'b'.
      if (language === 'python' && str(end) && str(end - 1)) {
        const next = operand(end);
        if (!next) break;
        value += next.value;
        end = next.end;
        continue;
      }
      if (!is(end, '+')) break;
      const next = operand(end + 1);
      if (!next) break;
      value += next.value;
      end = next.end;
    }
    return { value: value.slice(0, MAX_STRING), end };
  }
}

const is2 = (t: Token | undefined, v: string) => t !== undefined && t.kind === 'punct' && t.value === v;

function codePoint(value: string): string {
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 && n <= 0x10ffff ? String.fromCodePoint(n) : '';
}

/** The folded lines as text: names and numbers spaced apart, strings quoted, punctuation as written. */
function render(tokens: readonly Token[], folded: ReadonlySet<number>): FoldedLine[] {
  const lines = new Map<number, string>();
  let previous: Token | undefined;
  for (const t of tokens) {
    if (!folded.has(t.line)) {
      previous = t;
      continue;
    }
    let text = lines.get(t.line) ?? '';
    const piece = t.kind === 'string' ? `'${t.value.replace(/\n/g, '\\n')}'` : t.value;
    const spaced = previous && previous.line === t.line && previous.kind !== 'punct' && t.kind !== 'punct';
    text += (spaced ? ' ' : '') + piece + (t.kind === 'punct' && t.value === ',' ? ' ' : '');
    lines.set(t.line, text);
    previous = t;
  }
  return [...lines].map(([line, text]) => ({ line, text }));
}
