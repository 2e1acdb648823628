import * as z from 'zod';
import { catalogEntrySchema } from '../schemas.ts';
import { CATEGORY_PATTERN } from '../slug.ts';
import { SEARCH_SORTS } from './documents.ts';
import { lazySchema } from '../lazy-schema.ts';

/** `GET /api/search` (docs/api.md §7.11): its query and its answer. */

export const SEARCH_LIMIT_MAX = 100;
export const SEARCH_QUERY_MAX = 200;

export const searchQuerySchema = lazySchema(() =>
  z.object({
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
    owner: z.string().max(100).optional().describe("only in the skills CLI's shape (skills find --owner): only skills of this owner's login"),
  }),
);

export const searchAnswerSchema = lazySchema(() =>
  z.object({
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
  }),
);

export type SearchAnswerDocument = z.output<typeof searchAnswerSchema>;

/**
 * The answer of `GET /api/search` in the shape the `skills` CLI reads (`SKILLS_API_URL=<origin>
 * npx skills find <q>`, docs/api.md §7.11): it prints `<source>@<name>` and the installs, and
 * installs with `skills add <source> --skill <name>`.
 */
export const skillsFindAnswerSchema = lazySchema(() =>
  z.object({
    skills: z.array(
      z.object({
        id: z.string().describe('the slug'),
        skillId: z.string().describe('the slug'),
        name: z.string().describe('the slug: the name the skill has in its discovery index, which skills add --skill takes'),
        installs: z.number().describe('its public installs'),
        source: z.string().describe("the skill's own URL, <origin>/skills/<slug>, which skills add installs from its own discovery index"),
      }),
    ),
    count: z.number().describe('how many skills are listed'),
  }),
);

export type SkillsFindAnswer = z.output<typeof skillsFindAnswerSchema>;
