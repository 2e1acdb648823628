import type { Io, OutputStream } from './io.ts';
import { terminalText } from './terminal-text.ts';

export { formatBytes } from '../core/format-bytes.ts';

/**
 * How the client talks to people. Human text goes to stdout and is silent under `--json` (the
 * command's result is printed as one JSON document instead); warnings and progress go to stderr.
 * Colour only on a terminal, never with NO_COLOR (https://no-color.org), forced with FORCE_COLOR.
 * Every line is cleaned of escape sequences and control characters on its way out, whatever it
 * quotes from a registry, except the client's own colours.
 */

export interface Palette {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export interface Ui {
  readonly json: boolean;
  /** Colours for stdout. */
  readonly c: Palette;
  /** Colours for stderr. */
  readonly e: Palette;
  line(text?: string): void;
  warn(text: string): void;
  /** Whether {@link progress} shows anything: stderr is a terminal, and neither CI nor --json. */
  readonly interactive: boolean;
  /** A one-line progress report that rewrites itself; only on an interactive stderr. */
  progress(text: string): void;
  endProgress(): void;
}

const sgr = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
const colours: Palette = { bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), cyan: sgr(36, 39) };
/**
 * The sequences `colours` writes, the only ones left in printed text. A registry could still send
 * one of them to colour its own text, but none moves the cursor, hides text or changes the title.
 */
const OWN_COLOURS: ReadonlySet<string> = new Set([1, 2, 22, 31, 32, 33, 36, 39].map((n) => `\u001b[${n}m`));
const plain: Palette = { bold: String, dim: String, red: String, green: String, yellow: String, cyan: String };

export function useColour(stream: OutputStream, env: Io['env']): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

export function createUi(io: Io, json: boolean): Ui {
  const colourOut = useColour(io.stdout, io.env);
  const colourErr = useColour(io.stderr, io.env);
  const c = colourOut ? colours : plain;
  const e = colourErr ? colours : plain;
  const out = (text: string) => terminalText(text, colourOut ? OWN_COLOURS : undefined);
  const err = (text: string) => terminalText(text, colourErr ? OWN_COLOURS : undefined);
  const showProgress = !json && io.stderr.isTTY === true && io.env.TERM !== 'dumb' && !io.env.CI;
  let progressShown = false;
  const endProgress = () => {
    if (progressShown) io.stderr.write('\r\u001b[2K');
    progressShown = false;
  };
  return {
    json,
    c,
    e,
    interactive: showProgress,
    line: (text = '') => {
      if (json) return;
      endProgress();
      io.stdout.write(`${out(text)}\n`);
    },
    warn: (text) => {
      endProgress();
      io.stderr.write(`${e.yellow('warning')} ${err(text)}\n`);
    },
    progress: (text) => {
      if (!showProgress) return;
      io.stderr.write(`\r\u001b[2K${e.dim(err(text))}`);
      progressShown = true;
    },
    endProgress,
  };
}

const ANSI = /\u001b\[[0-9;]*m/g;
// As printed: without colours, and without what the output cleaning drops.
const width = (text: string) => terminalText(text).replace(ANSI, '').length;

/** Rows as aligned columns (two spaces apart); the last column is never padded. */
export function columns(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, width(cell));
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat(widths[i]! - width(cell))))
      .join('  ')
      .trimEnd(),
  );
}

export function truncate(text: string, max: number): string {
  const single = text.replace(/\s+/g, ' ').trim();
  return single.length <= max ? single : `${single.slice(0, max - 1)}…`;
}

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What a command receives: the outside world plus the way to talk to the user. */
export interface CommandIo extends Io {
  ui: Ui;
}
