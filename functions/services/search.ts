import type { CatalogEntry } from '#core/catalog';
import { search } from '#core/search/query';
import type { SearchAnswerDocument } from '#core/search/schemas';
import type { SearchSort } from '#core/search/documents';
import { catalogSnapshot } from '../content/catalog-reader.ts';
import { searchIndex } from '../content/search-reader.ts';
import type { Deps } from '../platform/composition.ts';

/**
 * `GET /api/search` (docs/api.md §7.11), and the ClawHub API's search through it: the static
 * search index the rebuild writes, searched as the site searches it in the browser, each result
 * completed from the catalog (its id and registry path).
 */
export interface SearchRequest {
  q?: string;
  category?: string;
  paid?: boolean;
  sort?: SearchSort;
  limit?: number;
}

const DEFAULT_LIMIT = 20;

export async function searchSkills(deps: Pick<Deps, 'staticStore' | 'clock'>, request: SearchRequest): Promise<SearchAnswerDocument> {
  const [index, catalog] = await Promise.all([searchIndex(deps.staticStore), catalogSnapshot(deps.staticStore)]);
  const query = request.q?.trim() ?? '';
  const answer = search(index, query, {
    limit: request.limit ?? DEFAULT_LIMIT,
    now: deps.clock().getTime(),
    ...(request.category === undefined ? {} : { category: request.category }),
    ...(request.paid === undefined ? {} : { paid: request.paid }),
    ...(request.sort === undefined ? {} : { sort: request.sort }),
  });
  const bySlug = new Map<string, CatalogEntry>(catalog.entries.map((entry) => [entry.slug, entry]));
  // The index and the catalog are written together; a skill in one and not yet in the other (a
  // read between the two writes) is left out rather than shown half.
  const skills = answer.hits.flatMap((hit) => {
    const entry = bySlug.get(hit.slug);
    return entry ? [{ ...entry, installs: hit.installs, score: round(hit.score) }] : [];
  });
  return {
    query,
    total: answer.total,
    skills,
    ...(answer.didYouMean ? { didYouMean: answer.didYouMean } : {}),
    ...(answer.corrected ? { corrected: true } : {}),
  };
}

const round = (n: number) => Math.round(n * 1000) / 1000;
