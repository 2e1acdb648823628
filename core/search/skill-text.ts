/**
 * How much of a `SKILL.md` body the index takes. What a skill is for is said at its top; past a
 * few pages, its text repeats its own vocabulary and would make every index shard heavier for
 * little that the description and first pages do not already say.
 */
export const TEXT_CHARS = 6_000;

/**
 * The body of a `SKILL.md` (front matter left out: name and description are indexed from the
 * listing), without links' addresses, cut at {@link TEXT_CHARS} on a word boundary.
 */
export function skillText(source: string): string {
  const plain = bodyOf(source)
    .replace(/\]\([^)]*\)/g, ']')
    .replace(/https?:\/\/\S+/g, ' ');
  if (plain.length <= TEXT_CHARS) return plain;
  const cut = plain.lastIndexOf(' ', TEXT_CHARS);
  return plain.slice(0, cut > 0 ? cut : TEXT_CHARS);
}

/**
 * The text after the front matter's closing `---` line (the whole text when there is none),
 * found by its delimiters alone, as core/skill-front-matter.ts finds them: indexing needs no
 * YAML parser, and the rebuild's bundle stays without one.
 */
function bodyOf(source: string): string {
  const text = source.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (!text.startsWith('---\n')) return text;
  const close = /^---[ \t]*$/m.exec(text.slice(4));
  return close ? text.slice(4 + close.index + close[0].length).replace(/^\n/, '') : '';
}
