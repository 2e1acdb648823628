import * as z from 'zod';
import { catalogEntrySchema } from '../schemas.ts';
import { CATEGORY_PATTERN } from '../slug.ts';
import { SEARCH_SORTS } from './documents.ts';

/** `GET /api/search` (docs/api.md §7.11): its query and its answer. */

export const SEARCH_LIMIT_MAX = 100;
export const SEARCH_QUERY_MAX = 200;

export const searchQuerySchema = z.object({
  q: z.string().max(SEARCH_QUERY_MAX).optional().describe('the words to find; none lists every skill (filtered), most installed first'),
  category: z
    .string()
    .max(40)
    .regex(CATEGORY_PATTERN, 'a category: lower-case letters, digits and hyphens')
    .optional()
    .describe('only skills of this category'),
  paid: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe('only paid (true) or only free (false) skills'),
  sort: z.enum(SEARCH_SORTS).optional().describe('relevance (the default: relevance blended with installs and freshness), installs, or newest'),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, 'a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1).max(SEARCH_LIMIT_MAX))
    .optional()
    .describe(`at most this many skills (1–${SEARCH_LIMIT_MAX}, default 20)`),
});

export const searchAnswerSchema = z.object({
  query: z.string(),
  total: z.number().describe('skills that match, however many are returned'),
  skills: z.array(
    catalogEntrySchema.extend({
      installs: z.number().describe('the popularity figure ranking uses (public installs)'),
      score: z.number().describe('what the results are ordered by with sort=relevance; comparable within one answer only'),
    }),
  ),
  didYouMean: z.string().optional().describe('a corrected query that finds skills, when a word of this one looks misspelt'),
  corrected: z.boolean().optional().describe('true when the query as typed found nothing and the skills are those of didYouMean'),
});

export type SearchAnswerDocument = z.output<typeof searchAnswerSchema>;
