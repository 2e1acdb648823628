import * as z from 'zod';
import { limits } from './limits.ts';
import { changelogSchema, slugSchema, visibleText } from './schemas.ts';

/**
 * The ClawHub-compatible API (docs/api.md §14): the queries it reads and the answers it gives, in
 * the shapes the ClawHub CLI (`clawdhub` 0.3.0) parses. Times are epoch milliseconds there, as
 * ClawHub's own registry sends them.
 */

/** A positive whole number in a query string, at most `max`. */
const countParam = (max: number) =>
  z
    .string()
    .regex(/^\d{1,4}$/, 'a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1).max(max));

export const CLAWHUB_PAGE_MAX = 200;

export const clawhubSearchQuerySchema = z.object({
  q: z.string().max(200).optional().describe('the words to find; none finds nothing'),
  limit: countParam(CLAWHUB_PAGE_MAX).optional().describe('at most this many results (1–200, default 20)'),
});

/** The orders `clawdhub explore --sort` asks for, by the names it sends. */
export const CLAWHUB_SORTS = ['updated', 'createdAt', 'downloads', 'installs', 'installsCurrent', 'installsAllTime', 'trending', 'stars', 'rating'] as const;
export type ClawhubSort = (typeof CLAWHUB_SORTS)[number];

export const clawhubListQuerySchema = z.object({
  limit: countParam(CLAWHUB_PAGE_MAX).optional().describe('skills per page (1–200, default 25)'),
  cursor: z.string().max(200).optional().describe('the nextCursor of the page before (sort=updated and createdAt)'),
  sort: z
    .enum(CLAWHUB_SORTS)
    .optional()
    .describe(
      'updated (default, last updated first); createdAt (first published, newest first, what clawhub explore asks for); downloads, installs, installsCurrent and installsAllTime all rank by installs; trending, stars and rating are not supported',
    ),
});

export const clawhubResolveQuerySchema = z.object({
  slug: z.string().min(1).max(200),
  hash: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, '64 hexadecimal characters')
    .transform((hash) => hash.toLowerCase())
    .describe("the folder's fingerprint, as clawdhub computes it"),
});

export const clawhubDownloadQuerySchema = z.object({
  slug: z.string().min(1).max(200),
  version: z.string().min(1).max(limits.versionChars).optional().describe('exact semver; default the current version'),
  tag: z.string().min(1).max(100).optional().describe('only latest: Skillpress has no other tags'),
});

/**
 * The `payload` part of a multipart publish, as `clawdhub publish` sends it. `tags` may only say
 * `latest` (what the current version is here anyway); forks have no counterpart.
 */
export const clawhubPublishPayloadSchema = z.strictObject({
  slug: slugSchema,
  displayName: visibleText(100),
  version: z.string().min(1).max(limits.versionChars),
  changelog: changelogSchema.default(''),
  tags: z
    .array(z.string())
    .max(20)
    .optional()
    .refine((tags) => (tags ?? []).every((tag) => tag === 'latest'), 'Skillpress has no tags: the current version is always latest'),
  forkOf: z
    .unknown()
    .refine((fork) => fork === undefined, 'Skillpress does not record forks: publish without --fork-of')
    .optional(),
});
export type ClawhubPublishPayload = z.output<typeof clawhubPublishPayloadSchema>;

/** The multipart body, for the OpenAPI document: `route()` does not read it, the handler does. */
export const clawhubPublishFormSchema = z.object({
  payload: z.string().describe('JSON: {slug, displayName, version, changelog, tags?}'),
  files: z.array(z.string().meta({ format: 'binary' })).describe("one part per file, its name the file's path in the skill"),
});

// Answers.

export const clawhubWellKnownSchema = z.object({ apiBase: z.string().describe('where the ClawHub-compatible API is: this origin') });

export const clawhubWhoamiSchema = z.object({
  user: z.object({ handle: z.string().nullable(), displayName: z.string().nullable(), image: z.string().nullable() }),
});

const clawhubVersionSchema = z.object({
  version: z.string(),
  createdAt: z.number().describe('epoch milliseconds'),
  changelog: z.string(),
});

const clawhubSkillSchema = z.object({
  slug: z.string(),
  displayName: z.string(),
  summary: z.string().nullable(),
  tags: z.object({ latest: z.string() }).describe('latest: the current version'),
  stats: z.object({ downloads: z.number(), installsAllTime: z.number() }).describe('installs counted by Skillpress, all sources'),
  createdAt: z.number().describe('epoch milliseconds'),
  updatedAt: z.number().describe('epoch milliseconds'),
});
export type ClawhubSkill = z.output<typeof clawhubSkillSchema>;
export type ClawhubVersion = z.output<typeof clawhubVersionSchema>;

export const clawhubSkillListSchema = z.object({
  items: z.array(clawhubSkillSchema.extend({ latestVersion: clawhubVersionSchema })),
  nextCursor: z.string().nullable(),
});

export const clawhubSkillPageSchema = z.object({
  skill: clawhubSkillSchema,
  latestVersion: clawhubVersionSchema,
  owner: clawhubWhoamiSchema.shape.user,
});

export const clawhubSearchSchema = z.object({
  results: z.array(
    z.object({
      slug: z.string(),
      displayName: z.string(),
      summary: z.string().nullable(),
      version: z.string(),
      score: z.number().describe('orders the results, 1 for the best; not a similarity'),
      updatedAt: z.number(),
    }),
  ),
});

export const clawhubResolveSchema = z.object({
  slug: z.string(),
  match: z.object({ version: z.string() }).nullable().describe('the version whose files the folder holds, if any'),
  latestVersion: z.object({ version: z.string() }).nullable(),
});

export const clawhubPublishedSchema = z.object({
  ok: z.literal(true),
  skillId: z.string(),
  versionId: z.string().describe('<slug>@<version>'),
});
