import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import type { SearchDocument, SearchText } from '#core/search/documents';
import { loadSkillsIndex, loadTextIndex, skillsIndexOptions, textIndexOptions } from '#core/search/index-files';
import { IndexShard } from '#core/search/index-shard';

/**
 * A file of the search index held between writes (core/search/index-shard.ts): what it writes
 * loads into a MiniSearch index that searches exactly as one built from the same skills, however
 * it was patched, and a write changes only what its skill touches.
 */

const listing = (slug: string, description: string, installs = 0): SearchDocument => ({
  slug,
  name: slug.replaceAll('-', ' '),
  description,
  category: 'tools',
  author: 'someone',
  currentVersion: '1.0.0',
  updatedAt: '2026-01-01T00:00:00.000Z',
  paid: false,
  installs,
});
const text = (slug: string, body: string): SearchText => ({ slug, version: '1.0.0', sha256: 'a'.repeat(64), text: body });

const listings = [
  listing('pdf-tools', 'Merge and split PDF files, fill forms'),
  listing('sheet-maker', 'Create xlsx spreadsheets with formulas and charts', 4),
  listing('deck-builder', 'Build slide decks from an outline'),
  listing('fuzz-harness', 'Write fuzz targets for Rust crates and run them'),
];
const QUERIES = ['pdf', 'spreadsheets formulas', 'slide', 'rust fuzz', 'merge forms', 'charts outline'];

/** Every query's results (ids and scores) over an index. */
function answers(index: MiniSearch<SearchDocument> | MiniSearch<SearchText>) {
  return QUERIES.map((q) => index.search(q, { prefix: true, fuzzy: 0.2 }).map((r) => [r.id, r.score]));
}

const loadedSkills = (shard: IndexShard<SearchDocument>) => loadSkillsIndex(JSON.parse(shard.json()));

describe('IndexShard', () => {
  it('writes a file that searches as MiniSearch built from the same documents', () => {
    const built = new MiniSearch(skillsIndexOptions);
    built.addAll(listings);
    expect(answers(loadedSkills(IndexShard.of(skillsIndexOptions, listings)))).toEqual(answers(built));
  });

  it('searches the same after any sequence of writes as a file laid out anew for what it holds', () => {
    const shard = IndexShard.of(skillsIndexOptions, listings.slice(0, 2));
    shard.set(listings[2]!);
    shard.set(listing('sheet-maker', 'Edit spreadsheets and pivot tables', 4));
    shard.remove('pdf-tools');
    shard.set(listings[3]!);
    shard.set(listings[0]!);
    const final = [listings[0]!, listing('sheet-maker', 'Edit spreadsheets and pivot tables', 4), listings[2]!, listings[3]!];
    expect(answers(loadedSkills(shard))).toEqual(answers(loadedSkills(IndexShard.of(skillsIndexOptions, final))));
    expect(shard.stored('sheet-maker')).toMatchObject({ description: 'Edit spreadsheets and pivot tables', installs: 4 });
    expect(shard.slugs().sort()).toEqual(['deck-builder', 'fuzz-harness', 'pdf-tools', 'sheet-maker']);
  });

  it('lays out a file by slug, so its bytes depend only on the documents it holds', () => {
    expect(IndexShard.of(skillsIndexOptions, [...listings].reverse()).json()).toBe(IndexShard.of(skillsIndexOptions, listings).json());
  });

  it('keeps every other document’s number on a write, so only the entries of the terms the written skill uses change', () => {
    const shard = IndexShard.of(textIndexOptions, [text('pdf-tools', 'merge pdf files'), text('sheet-maker', 'pivot tables and charts')]);
    const entries = () => new Map((JSON.parse(shard.json()).index as [string, unknown][]).map(([term, postings]) => [term, JSON.stringify(postings)]));
    const before = entries();
    // Its slug sorts before both: laid out anew it would be number 0, and every posting would change.
    shard.set(text('aaa-first', 'merge spreadsheets'));
    const after = entries();
    const changed = [...after].filter(([term, postings]) => before.get(term) !== postings).map(([term]) => term);
    expect(changed.sort()).toEqual(['merg', 'spreadsheet']);
  });

  it('takes a file back with its numbers and goes on from them', () => {
    const shard = IndexShard.of(textIndexOptions, [text('a-one', 'alpha words'), text('b-two', 'beta words'), text('c-three', 'gamma words')]);
    shard.remove('b-two');
    const loaded = IndexShard.load(textIndexOptions, JSON.parse(shard.json()));
    expect(loaded.json()).toBe(shard.json());
    loaded.set(text('d-four', 'delta words'));
    shard.set(text('d-four', 'delta words'));
    expect(loaded.json()).toBe(shard.json());
    const index = loadTextIndex(JSON.parse(loaded.json()));
    expect(index.search('words').map((r) => r.id)).toHaveLength(3);
    expect(index.search('beta')).toEqual([]);
  });
});
