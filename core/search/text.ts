import { stemmer } from 'stemmer';

/**
 * How text becomes search terms, the same for every skill indexed and every query: folded to
 * lower case without accents, split into words of letters and digits, stop words dropped, and
 * each word reduced to its English stem (Porter's), so "merging", "merges" and "merge" are one
 * term. Pure and small: it runs in the browser on every keystroke.
 */

/** Lower case without accents or compatibility forms, so `Café` and `cafe` are one word. */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

/** A word of a text, as written (folded), and where it is: for highlighting. */
export interface Word {
  word: string;
  start: number;
  end: number;
}

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * The words of `text` in order. Positions are in `text` itself: folding is done word by word,
 * so accents removed from a word never move the words after it.
 */
export function words(text: string): Word[] {
  const found: Word[] = [];
  for (const match of text.matchAll(WORD)) found.push({ word: fold(match[0]), start: match.index, end: match.index + match[0].length });
  return found;
}

/** The folded words of `text`, nothing else. */
export const tokens = (text: string): string[] => (fold(text).match(WORD) as string[] | null) ?? [];

/**
 * English words too common to say what a skill does, in skill texts or in queries ("how do I
 * make a chart for my data"). Short on purpose: a word that carries meaning in some query
 * ("test", "use", "new", "help") is left to the ranking, which weighs common words down anyway.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be by can could do does for from had has have how i if in into is it its me my of on or our please ' +
    'should so some such than that the their them then there these they this those to was we what when where which who why will ' +
    'with would you your want need wanna'
  ).split(' '),
);

const stems = new Map<string, string>();

/**
 * An adjective of capability and its noun (accessible, accessibility; maintainable,
 * maintainability; observable, observability), whose stem keeps its `-abl`/`-ibl`.
 */
const QUALITY = /^(.{3,}[ai])(?:ble|bles|bility|bilities)$/;

/**
 * The stem of a folded word; numbers and words of up to three letters stay as they are.
 *
 * Porter's stemmer, but for one of its steps: it strips `-able`/`-ible` (and `-ability`) back to
 * the verb when the rest is long enough ("accessibility" → "access", "availability" → "avail"),
 * and a quality is not its verb: "accessibility" is about people using a page, "access" about
 * who may open it, and likewise maintainability, observability, availability, compatibility,
 * the qualities software is judged by. Such words keep their `-abl`/`-ibl` stem, so
 * "accessible" and "accessibility" are still one term, apart from "access".
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let found = stems.get(word);
  if (found === undefined) {
    const quality = QUALITY.exec(word);
    found = quality ? `${quality[1]}bl` : stemmer(word);
    // A vocabulary is a few tens of thousands of words; an unbounded stream of new ones is not.
    if (stems.size > 100_000) stems.clear();
    stems.set(word, found);
  }
  return found;
}

/** The index term of a word of a skill's text, or null for a stop word. */
export function indexTerm(word: string): string | null {
  return STOP_WORDS.has(word) ? null : stem(word);
}
