/**
 * A fixed piece of work that has nothing of Skillpress in it, timed beside the scanner's
 * latencies so a reader can tell the machine's state from the table. This machine has slow
 * phases, seconds long, in which text and allocation work runs up to twice as slowly while plain
 * arithmetic does not; the scanner's figures move with them. The work is the scanner's kind:
 * 1 MiB of text split into lines, each matched against a pattern and kept as an object.
 */
const TEXT = fixedText(1 << 20);
const PATTERN = /\b(?:curl|token)\b[^\n]{0,40}?https?:\/\//i;

/** Runs the reference once and returns its time in milliseconds. */
export function machineReference(): number {
  const start = performance.now();
  const kept: Array<{ line: string; words: string[]; matches: boolean }> = [];
  for (const line of TEXT.split('\n')) kept.push({ line, words: line.split(' '), matches: PATTERN.test(line) });
  const ms = performance.now() - start;
  if (kept.length === 0) throw new Error('the machine reference read no lines');
  return ms;
}

/** The same text on every run and every machine: words drawn by a fixed linear congruential generator. */
function fixedText(length: number): string {
  const words = ['the', 'skill', 'curl', 'token', 'install', 'python3', 'scripts', 'with', 'an', 'agent', '→', 'file', 'run', 'https://example.com/x'];
  let seed = 1;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const parts: string[] = [];
  let size = 0;
  while (size < length) {
    const word = words[Math.floor(next() * words.length)]!;
    parts.push(word, next() < 0.1 ? '\n' : ' ');
    size += word.length + 1;
  }
  return parts.join('');
}
