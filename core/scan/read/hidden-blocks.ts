import { lineAt } from './source-text.ts';

/**
 * Parts of a Markdown or HTML file that a rendered page does not show but an agent reading the
 * source does: HTML comments, Markdown link-reference comments (`[//]: # (…)`) and elements
 * hidden by `hidden` or an inline style. Comments inside fenced code blocks are shown as code,
 * so they are not hidden.
 */

export interface HiddenBlock {
  kind: 'HTML comment' | 'Markdown comment' | 'hidden element';
  /** 1-based line where the block starts. */
  line: number;
  text: string;
}

/** How much of one block is read; instructions hide in the first few hundred characters. */
const MAX_BLOCK_CHARS = 64 * 1024;

const MARKDOWN_COMMENT = /^ {0,3}\[(?:\/\/|comment|_|#)\]:\s{0,8}(?:#|<>)\s{0,8}(?:\((.{0,4000})\)|"(.{0,4000})"|'(.{0,4000})')\s{0,8}$/;
const HIDDEN_ELEMENT =
  /<([a-z][a-z0-9]{0,10})\b[^>]{0,300}?(?:\shidden(?=[\s>=/])|display\s{0,4}:\s{0,4}none|visibility\s{0,4}:\s{0,4}hidden|font-size\s{0,4}:\s{0,4}(?:0(?:\.\d{1,3})?(?:px|pt|em|rem|%)?|1(?:\.0{1,3})?(?:px|pt))\s{0,4}[;"']|opacity\s{0,4}:\s{0,4}0(?:\.0{1,4})?\s{0,4}[;"'])[^>]{0,300}>/gi;

/**
 * Every hidden block of a file, in order.
 * @param inCode which 1-based lines are inside fenced code blocks (shown, so not hidden).
 */
export function hiddenBlocks(text: string, lines: readonly string[], starts: readonly number[], inCode: (line: number) => boolean): HiddenBlock[] {
  const blocks: HiddenBlock[] = [];
  for (let at = text.indexOf('<!--'); at !== -1; ) {
    const end = text.indexOf('-->', at + 4);
    const stop = end === -1 ? text.length : end;
    const line = lineAt(starts, at);
    if (!inCode(line)) blocks.push({ kind: 'HTML comment', line, text: text.slice(at + 4, Math.min(stop, at + 4 + MAX_BLOCK_CHARS)) });
    at = end === -1 ? -1 : text.indexOf('<!--', end + 3);
  }
  lines.forEach((raw, i) => {
    if (!raw.includes(']:') || inCode(i + 1)) return;
    const m = MARKDOWN_COMMENT.exec(raw);
    if (m) blocks.push({ kind: 'Markdown comment', line: i + 1, text: m[1] ?? m[2] ?? m[3] ?? '' });
  });
  // Each search for a closing tag starts where the last block ended, so the scan stays linear
  // even when a file opens thousands of hidden elements and never closes them.
  const hidden = new RegExp(HIDDEN_ELEMENT.source, HIDDEN_ELEMENT.flags);
  for (let m = hidden.exec(text); m; m = hidden.exec(text)) {
    const from = m.index + m[0].length;
    const close = text.indexOf(`</${m[1]}`, from);
    const to = Math.min(close === -1 ? text.length : close, from + MAX_BLOCK_CHARS);
    const line = lineAt(starts, m.index);
    if (!inCode(line)) blocks.push({ kind: 'hidden element', line, text: text.slice(from, to) });
    hidden.lastIndex = Math.max(to, from);
  }
  return blocks.sort((a, b) => a.line - b.line);
}
