import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '#core/canonical-json';
import { catalogDocument, catalogEntry, catalogJson, catalogList, discoveryDocument, discoveryEntry, discoveryJson, discoveryList } from '#core/catalog';
import type { SkillFacts } from '#core/registry-document';
import { SortedJsonList } from '#core/sorted-json-list';

const facts = (slug: string, description: string, paid = false): SkillFacts => ({
  id: `id-${slug}`,
  slug,
  name: `Skill ${slug}`,
  description,
  category: 'dev-tools',
  authorLogin: 'alice',
  paid,
  formats: ['agent-skills'],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-09T00:00:00.000Z',
});

/** Sets and deletes on slugs (a small alphabet, so the same slug comes back often). */
const operations = fc.array(
  fc.record({
    slug: fc.stringMatching(/^[a-d0-9-]{1,4}$/),
    description: fc.string({ maxLength: 12 }),
    version: fc.constantFrom('1.0.0', '1.2.0', '2.0.0-rc.1'),
    remove: fc.boolean(),
  }),
  { maxLength: 60 },
);

describe('sorted JSON list (the catalog kept between writes)', () => {
  it('serialises to exactly the canonical catalog and discovery documents after any sets and deletes', () => {
    fc.assert(
      fc.property(operations, (ops) => {
        const catalog = catalogList();
        const discovery = discoveryList();
        const expected = new Map<string, { description: string; version: string }>();
        for (const op of ops) {
          if (op.remove) {
            catalog.delete(op.slug);
            discovery.delete(op.slug);
            expected.delete(op.slug);
          } else {
            catalog.set(catalogEntry(facts(op.slug, op.description), op.version));
            discovery.set(discoveryEntry(facts(op.slug, op.description), op.version, 'ab'.repeat(32), op.description));
            expected.set(op.slug, op);
          }
        }
        const entries = [...expected].map(([slug, e]) => catalogEntry(facts(slug, e.description), e.version));
        const indexEntries = [...expected].map(([slug, e]) => discoveryEntry(facts(slug, e.description), e.version, 'ab'.repeat(32), e.description));
        const at = '2026-02-01T00:00:00.000Z';
        expect(catalogJson(catalog, at)).toBe(canonicalJson(catalogDocument(entries, at)));
        expect(discoveryJson(discovery)).toBe(canonicalJson(discoveryDocument(indexEntries)));
        expect(catalog.size).toBe(expected.size);
      }),
    );
  });

  it('gives the same bytes when built from a parsed document as when patched entry by entry', () => {
    const entries = ['zeta', 'alpha', 'mid', 'alpha-2'].map((slug) => catalogEntry(facts(slug, `about ${slug}`), '1.0.0'));
    const patched = catalogList();
    for (const entry of entries) patched.set(entry);
    const text = catalogJson(patched, '2026-02-01T00:00:00.000Z');
    const parsed = catalogList(JSON.parse(text).skills);
    expect(catalogJson(parsed, '2026-02-01T00:00:00.000Z')).toBe(text);
    parsed.set(catalogEntry(facts('beta', 'new'), '1.0.0'));
    patched.set(catalogEntry(facts('beta', 'new'), '1.0.0'));
    expect(catalogJson(parsed, '2026-02-02T00:00:00.000Z')).toBe(catalogJson(patched, '2026-02-02T00:00:00.000Z'));
  });

  it('refuses a header key that would sort after the entries', () => {
    const list = new SortedJsonList<{ k: string }>((e) => e.k, [{ k: 'a' }]);
    expect(() => list.serialise({ zebra: 1 }, 'items')).toThrow(/sort after/);
    expect(list.serialise({ count: 1 }, 'items')).toBe('{"count":1,"items":[{"k":"a"}]}');
  });
});
