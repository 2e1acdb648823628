import * as z from 'zod/mini';
import { searchAnswerSchema, searchQuerySchema, skillsFindAnswerSchema } from '#core/search/schemas';
import { operations } from '../operation.ts';
import { lazySchema } from '#core/lazy-schema';

/** Searching the catalog (docs/api.md §7.11). */
export const searchOperations = operations(
  {
    name: 'Search',
    description:
      'The search the site runs as you type and `skillpress search` prints: the static index the rebuild writes, with stemming, synonyms, ' +
      'typo tolerance and a ranking that blends relevance with installs and freshness.',
  },
  {
    search: {
      method: 'get',
      path: '/api/search',
      summary: 'Skills matching q, best first; no q lists every skill (filtered), most installed first',
      description:
        'A query about nothing in the catalog answers no skills (and, when a word looks misspelt, didYouMean) rather than weak matches. ' +
        'Paid skills are found by their listing; their SKILL.md is never searched. Cache-Control: public, max-age=60, Vary: User-Agent, Accept. ' +
        'The skills CLI (SKILLS_API_URL=<origin> npx skills find <q>: User-Agent node, an Accept without application/json) gets its own shape, ' +
        'the free skills that stand as clean, each with its own URL as the source it adds.',
      auth: 'none',
      query: searchQuerySchema,
      success: { status: 200, description: 'OK', schema: lazySchema(() => z.union([searchAnswerSchema, skillsFindAnswerSchema])) },
    },
  },
);
