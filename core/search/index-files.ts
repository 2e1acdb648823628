import MiniSearch, { type AsPlainObject, type Options } from 'minisearch';
import type { SearchDocument, SearchText } from './documents.ts';
import { indexTerm, tokens } from './text.ts';

/**
 * The search index as static files, built by the rebuild with MiniSearch and read the same way
 * by the site (in the browser), the API and, through the API, the CLI. It is split so that a
 * browser shows the first results after one small download:
 *
 * - the **head** (`/.well-known/skillpress/search.json`): the listings of the most installed
 *   skills, and the list of the other files;
 * - **skills shards**: the listings of the other skills, each skill in the shard its slug hashes
 *   to, loaded right after the head;
 * - **text shards**: the `SKILL.md` bodies of free skills, by the same hash, loaded last.
 *
 * Each is a serialised MiniSearch index: the rebuild patches one skill in the shard that holds it
 * (core/search/index-shard.ts), so a write costs the same however many skills there are.
 */

export const SEARCH_SCHEMA_VERSION = 1;

/** The head file: its own index of the most installed skills, and where the rest is. */
export interface SearchHeadFile {
  schemaVersion: number;
  /** Skills in all the skills shards, the head's included. */
  skills: number;
  /** The highest popularity figure of any skill, which popularity is ranked against. */
  maxInstalls: number;
  /** Paths of the other skills shards and of the text shards, in order (shard n is at index n - 1 and n). */
  shards: { skills: string[]; text: string[] };
  /**
   * The ETag each shard was written with, by path: a reader that holds a shard with that ETag
   * has it as it stands, so it checks the head alone (absent in heads written before it).
   */
  etags: Record<string, string>;
  index: AsPlainObject;
}

export interface SearchShardFile {
  schemaVersion: number;
  index: AsPlainObject;
}

/** The fields of a listing that are searched; the slug's hyphens read as spaces. */
export const SKILL_FIELDS = ['name', 'slug', 'description', 'category', 'author'] as const;

/** What a result shows, kept in the index beside the terms. */
const STORED: (keyof SearchDocument)[] = [
  'name',
  'description',
  'category',
  'author',
  'currentVersion',
  'updatedAt',
  'paid',
  'price',
  'deprecated',
  'installs',
];

const common = {
  idField: 'slug',
  tokenize: (text: string) => tokens(text),
  processTerm: (term: string) => indexTerm(term),
  // Readers never discard: the rebuild writes each file whole.
  autoVacuum: false,
} as const;

export const skillsIndexOptions: Options<SearchDocument> = {
  ...common,
  fields: [...SKILL_FIELDS],
  storeFields: STORED,
};

export const textIndexOptions: Options<SearchText> = {
  ...common,
  fields: ['text'],
  storeFields: ['version', 'sha256'],
};

export type SkillsIndex = MiniSearch<SearchDocument>;
export type TextIndex = MiniSearch<SearchText>;

export const newSkillsIndex = (): SkillsIndex => new MiniSearch(skillsIndexOptions);
export const newTextIndex = (): TextIndex => new MiniSearch(textIndexOptions);
export const loadSkillsIndex = (plain: AsPlainObject): SkillsIndex => MiniSearch.loadJS(plain, skillsIndexOptions);
export const loadTextIndex = (plain: AsPlainObject): TextIndex => MiniSearch.loadJS(plain, textIndexOptions);

/** The stored listing of `slug` in `index`, as a search document. */
export function storedDocument(index: SkillsIndex, slug: string): SearchDocument | undefined {
  const stored = index.getStoredFields(slug);
  return stored ? ({ slug, ...stored } as SearchDocument) : undefined;
}

/** Which of `count` hashed shards a slug belongs to (FNV-1a: stable, the same in every reader). */
export function shardOf(slug: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < slug.length; i++) {
    hash ^= slug.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}
