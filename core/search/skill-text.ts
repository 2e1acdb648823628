import { readFrontMatter } from '../skill-front-matter.ts';

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
  const { body } = readFrontMatter(source);
  const plain = body.replace(/\]\([^)]*\)/g, ']').replace(/https?:\/\/\S+/g, ' ');
  if (plain.length <= TEXT_CHARS) return plain;
  const cut = plain.lastIndexOf(' ', TEXT_CHARS);
  return plain.slice(0, cut > 0 ? cut : TEXT_CHARS);
}
