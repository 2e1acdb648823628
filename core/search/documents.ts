import type { CatalogEntry } from '../catalog.ts';
import type { PublicInstalls } from '../public-installs.ts';

/**
 * What the search index holds of a skill. Its listing (name, slug, description, category,
 * author, and what a result shows) goes into the skills shards; the text of its `SKILL.md`
 * body, for free skills only, into the text shards. Paid skills are found by their listing, and
 * their `SKILL.md` never enters an index; quarantined skills enter nothing (the catalog leaves
 * them out already).
 */
export interface SearchDocument {
  slug: string;
  name: string;
  description: string;
  category: string;
  author: string;
  currentVersion: string;
  updatedAt: string;
  paid: boolean;
  price?: CatalogEntry['price'];
  deprecated?: string;
  /** The popularity figure ranking uses: {@link popularity} of the skill's public install counts. */
  installs: number;
}

/** How results may be ordered: relevance (blended with popularity and freshness), installs, newest. */
export const SEARCH_SORTS = ['relevance', 'installs', 'newest'] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

/** A free skill's `SKILL.md` body, as the text shards index it. */
export interface SearchText {
  slug: string;
  /** The version whose `SKILL.md` this is, so a full rebuild re-reads only what changed. */
  version: string;
  /** The SHA-256 of that `SKILL.md` in the content store, to read it again when shards are split. */
  sha256: string;
  text: string;
}

/** The listing of a catalog entry, with its popularity. */
export function searchDocument(entry: CatalogEntry, installs: number): SearchDocument {
  return {
    slug: entry.slug,
    name: entry.name,
    description: entry.description,
    category: entry.category,
    author: entry.author,
    currentVersion: entry.currentVersion,
    updatedAt: entry.updatedAt,
    paid: entry.paid,
    ...(entry.price ? { price: entry.price } : {}),
    ...(entry.deprecated === undefined ? {} : { deprecated: entry.deprecated }),
    installs,
  };
}

/**
 * The figure popularity ranks by: a skill's public installs, which count one per client per day
 * (docs/api.md §10.4), so a CI loop reinstalling a skill a thousand times weighs as one client.
 */
export function popularity(counts: PublicInstalls): number {
  return counts.total;
}
