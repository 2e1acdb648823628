/**
 * Catalog search, one ranking for every reader (the CLI's `search`, the site's instant search):
 * every word of the query must appear in a skill's name, slug, description, category or author,
 * ignoring case and accents; name matches rank first, and a query that spells a slug exactly
 * puts that skill on top. Pure, with the folded fields built once, so it can run on every
 * keystroke over 10,000 skills.
 */
export interface Searchable {
  slug: string;
  name: string;
  description: string;
  category: string;
  author: string;
}

export interface SearchIndex<T extends Searchable> {
  entries: readonly T[];
  fields: { name: string; slug: string; description: string; category: string; author: string }[];
}

export interface SearchResult<T> {
  /** How many skills match, however many are returned. */
  total: number;
  /** The best `limit` matches, best first. */
  matches: T[];
}

export function buildIndex<T extends Searchable>(entries: readonly T[]): SearchIndex<T> {
  return {
    entries,
    fields: entries.map((e) => ({
      name: fold(e.name),
      slug: e.slug,
      description: fold(e.description),
      category: fold(e.category),
      author: fold(e.author),
    })),
  };
}

/** The skills matching every word of `query`, best first; an empty query matches nothing. */
export function search<T extends Searchable>(index: SearchIndex<T>, query: string, limit = Number.POSITIVE_INFINITY): SearchResult<T> {
  const words = fold(query)
    .split(/[\s,]+/)
    .filter(Boolean);
  if (words.length === 0) return { total: 0, matches: [] };
  const exactSlug = words.join('-');
  const scored: { score: number; i: number }[] = [];
  for (let i = 0; i < index.fields.length; i++) {
    const f = index.fields[i]!;
    let score = 0;
    for (const word of words) {
      const s = wordScore(f, word);
      if (s === 0) {
        score = 0;
        break;
      }
      score += s;
    }
    if (score === 0) continue;
    if (f.slug === exactSlug) score += EXACT_SLUG_BONUS;
    scored.push({ score, i });
  }
  const fields = index.fields;
  scored.sort((a, b) => b.score - a.score || compare(fields[a.i]!.name, fields[b.i]!.name) || compare(fields[a.i]!.slug, fields[b.i]!.slug));
  return { total: scored.length, matches: scored.slice(0, limit).map((s) => index.entries[s.i]!) };
}

/** Above any sum of word scores a short query can reach. */
const EXACT_SLUG_BONUS = 1_000;

function wordScore(f: SearchIndex<Searchable>['fields'][number], word: string): number {
  if (f.name === word) return 100;
  if (f.name.startsWith(word)) return 60;
  if (f.name.includes(word)) return 30;
  if (f.slug.includes(word)) return 20;
  if (f.category === word || f.author === word) return 15;
  if (f.category.includes(word) || f.author.includes(word)) return 8;
  if (f.description.includes(word)) return 5;
  return 0;
}

/** Lower case without accents, so `cafe` finds `Café`. */
function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
