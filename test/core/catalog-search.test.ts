import { describe, expect, it } from 'vitest';
import { buildIndex, search } from '../../site/src/lib/search-rank.ts';

const skill = (slug: string, name: string, description = '', category = 'dev-tools', author = 'alice') => ({ slug, name, description, category, author });

const index = buildIndex([
  skill('pretty-json', 'Pretty JSON', 'Formats JSON files'),
  skill('json-schema', 'Schema Checker', 'Validates JSON against a schema', 'data'),
  skill('csv-cleaner', 'CSV Cleaner', 'Normalises CSV', 'data', 'bob'),
  skill('cafe', 'Café Finder', 'Finds coffee'),
]);

describe('catalog search', () => {
  it('ranks a name match above a description match', () => {
    expect(search(index, 'json').matches.map((s) => s.slug)).toEqual(['pretty-json', 'json-schema']);
  });

  it('needs every word of the query to match somewhere', () => {
    expect(search(index, 'json data').matches.map((s) => s.slug)).toEqual(['json-schema']);
    expect(search(index, 'json nothing').total).toBe(0);
  });

  it('matches authors and categories, ignoring case and accents', () => {
    expect(search(index, 'BOB').matches.map((s) => s.slug)).toEqual(['csv-cleaner']);
    expect(search(index, 'cafe').matches.map((s) => s.slug)).toEqual(['cafe']);
  });

  it('finds nothing for an empty query, and caps the matches it returns but not the total', () => {
    expect(search(index, '   ')).toEqual({ total: 0, matches: [] });
    const many = buildIndex(Array.from({ length: 120 }, (_, i) => skill(`s-${i}`, `Skill ${i}`)));
    const result = search(many, 'skill', 50);
    expect(result.total).toBe(120);
    expect(result.matches).toHaveLength(50);
  });

  it('searches 10,000 skills in a few milliseconds', () => {
    const big = buildIndex(Array.from({ length: 10_000 }, (_, i) => skill(`seeded-${i}`, `Seeded skill ${i}`, `Seeded skill number ${i} for benchmarks`, ['data', 'ops'][i % 2]!)));
    const started = performance.now();
    for (const q of ['s', 'se', 'see', 'seeded 99', 'ops 123']) search(big, q);
    expect((performance.now() - started) / 5).toBeLessThan(50);
  });
});
