/**
 * Client-side search over the catalog: every word of the query must appear in a skill's name,
 * slug, description, category or author; name matches rank first. Pure, so it is tested without
 * a browser, and fast enough to run on every keystroke over 10,000 skills.
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

export interface SearchResult<T> {
  total: number;
  matches: T[];
}

export function search<T extends Searchable>(index: SearchIndex<T>, query: string, limit = 50): SearchResult<T> {
  const words = fold(query).split(/[\s,]+/).filter(Boolean);
  if (words.length === 0) return { total: 0, matches: [] };
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
    if (score > 0) scored.push({ score, i });
  }
  scored.sort((a, b) => b.score - a.score || compare(index.fields[a.i]!.name, index.fields[b.i]!.name));
  return { total: scored.length, matches: scored.slice(0, limit).map((s) => index.entries[s.i]!) };
}

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
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
