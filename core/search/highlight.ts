import { stem, words } from './text.ts';

/** A run of a text, marked when it is a word the search matched. */
export interface Segment {
  text: string;
  mark: boolean;
}

/**
 * Splits `text` into runs, marking each word whose stem is one of `terms` (the index terms a
 * result matched) or starts with one of `prefixes` (the word being typed): what the site shows
 * in `<mark>`. Everything else is kept as it was, so joining the runs gives `text` back.
 */
export function highlight(text: string, terms: readonly string[], prefixes: readonly string[] = []): Segment[] {
  const matched = new Set(terms);
  const segments: Segment[] = [];
  let at = 0;
  const push = (run: string, mark: boolean) => {
    if (run === '') return;
    const last = segments.at(-1);
    if (last && last.mark === mark) last.text += run;
    else segments.push({ text: run, mark });
  };
  for (const { word, start, end } of words(text)) {
    const stemmed = stem(word);
    if (!matched.has(stemmed) && !prefixes.some((p) => p.length > 0 && word.startsWith(p))) continue;
    push(text.slice(at, start), false);
    push(text.slice(start, end), true);
    at = end;
  }
  push(text.slice(at), false);
  return segments;
}
