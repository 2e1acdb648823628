import { describe, expect, it } from 'vitest';
import { buildIndex, search } from '#core/catalog-search';

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

  it('puts a skill whose slug the query spells exactly on top', () => {
    const tied = buildIndex([skill('a-json-b', 'json'), skill('json', 'json')]);
    expect(search(tied, 'json').matches.map((s) => s.slug)).toEqual(['json', 'a-json-b']);
    expect(search(index, 'json schema').matches[0]!.slug).toBe('json-schema');
  });

  it('ranks the same way for the CLI and the site: name, then tags, then description', () => {
    const catalog = buildIndex([
      skill('csv-tools', 'csv-tools', 'Reads CSV and writes JSON', 'misc'),
      skill('json-format', 'JSON Format', 'Pretty prints', 'misc'),
      skill('yaml', 'yaml', '', 'json-adjacent'),
      skill('other', 'other', '', 'misc'),
    ]);
    expect(search(catalog, 'JSON').matches.map((s) => s.slug)).toEqual(['json-format', 'yaml', 'csv-tools']);
  });
});
