import * as z from 'zod/mini';
import { catalogEntrySchema } from '../schemas.ts';
import { CATEGORY_PATTERN } from '../slug.ts';
import { SEARCH_SORTS } from './documents.ts';
import { lazySchema } from '../lazy-schema.ts';

/** `GET /api/search` (docs/api.md §7.11): its query and its answer. */

export const SEARCH_LIMIT_MAX = 100;
export const SEARCH_QUERY_MAX = 200;

export const searchQuerySchema = lazySchema(() =>
  z.object({
    q: z
      .optional(z.string().check(z.maxLength(SEARCH_QUERY_MAX)))
      .check(z.describe('the words to find; none lists every skill (filtered), most installed first')),
    category: z
      .optional(z.string().check(z.maxLength(40), z.regex(CATEGORY_PATTERN, 'a category: lower-case letters, digits and hyphens')))
      .check(z.describe('only skills of this category')),
    paid: z
      .optional(
        z.pipe(
          z.enum(['true', 'false']),
          z.transform((v) => v === 'true'),
        ),
      )
      .check(z.describe('only paid (true) or only free (false) skills')),
    sort: z.optional(z.enum(SEARCH_SORTS)).check(z.describe('relevance (the default: relevance blended with installs and freshness), installs, or newest')),
    limit: z
      .optional(
        z.pipe(
          z.pipe(z.string().check(z.regex(/^\d{1,3}$/, 'a whole number')), z.transform(Number)),
          z.number().check(z.int(), z.minimum(1), z.maximum(SEARCH_LIMIT_MAX)),
        ),
      )
      .check(z.describe(`at most this many skills (1–${SEARCH_LIMIT_MAX}, default 20)`)),
    owner: z
      .optional(z.string().check(z.maxLength(100)))
      .check(z.describe("only in the skills CLI's shape (skills find --owner): only skills of this owner's login")),
  }),
);

export const searchAnswerSchema = lazySchema(() =>
  z.object({
    query: z.string(),
    total: z.number().check(z.describe('skills that match, however many are returned')),
    skills: z.array(
      z.extend(catalogEntrySchema, {
        installs: z.number().check(z.describe('the popularity figure ranking uses (public installs)')),
        score: z.number().check(z.describe('what the results are ordered by with sort=relevance; comparable within one answer only')),
      }),
    ),
    didYouMean: z.optional(z.string()).check(z.describe('a corrected query that finds skills, when a word of this one looks misspelt')),
    corrected: z.optional(z.boolean()).check(z.describe('true when the query as typed found nothing and the skills are those of didYouMean')),
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
        id: z.string().check(z.describe('the slug')),
        skillId: z.string().check(z.describe('the slug')),
        name: z.string().check(z.describe('the slug: the name the skill has in its discovery index, which skills add --skill takes')),
        installs: z.number().check(z.describe('its public installs')),
        source: z.string().check(z.describe("the skill's own URL, <origin>/skills/<slug>, which skills add installs from its own discovery index")),
      }),
    ),
    count: z.number().check(z.describe('how many skills are listed')),
  }),
);

export type SkillsFindAnswer = z.output<typeof skillsFindAnswerSchema>;
