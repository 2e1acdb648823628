import * as z from 'zod/mini';
import { limits } from './limits.ts';
import { VERDICTS } from './scan/finding.ts';
import { lazySchema } from './lazy-schema.ts';

/**
 * The ClawHub-compatible API (docs/api.md §14): the queries it reads and the answers it gives, in
 * the shapes the ClawHub CLI parses (`clawhub` 0.23.3, and `clawdhub` 0.3.0 before it). Times are
 * epoch milliseconds there, as ClawHub's own registry sends them. What a publish sends and gets
 * back is in clawhub-publish-schemas.ts, which only the publish Lambda loads.
 */

/**
 * The publisher a ClawHub client names beside a slug (`ownerHandle`, with or without `@`): the
 * author's login here. A handle that is not the author's finds no skill, as on ClawHub.
 */
const ownerHandle = lazySchema(() =>
  z.optional(z.string().check(z.maxLength(100))).check(z.describe("the author's login (ClawHub's owner handle); another finds nothing")),
);

/** A positive whole number in a query string, at most `max`. */
const countParam = (max: number) =>
  z.pipe(z.pipe(z.string().check(z.regex(/^\d{1,4}$/, 'a whole number')), z.transform(Number)), z.number().check(z.int(), z.minimum(1), z.maximum(max)));

export const CLAWHUB_PAGE_MAX = 200;

export const clawhubSearchQuerySchema = lazySchema(() =>
  z.object({
    q: z.optional(z.string().check(z.maxLength(200))).check(z.describe('the words to find; none finds nothing')),
    limit: z.optional(countParam(CLAWHUB_PAGE_MAX)).check(z.describe('at most this many results (1–200, default 20)')),
  }),
);

/** The orders `clawdhub explore --sort` asks for, by the names it sends. */
export const CLAWHUB_SORTS = ['updated', 'createdAt', 'downloads', 'installs', 'installsCurrent', 'installsAllTime', 'trending', 'stars', 'rating'] as const;
export type ClawhubSort = (typeof CLAWHUB_SORTS)[number];

export const clawhubListQuerySchema = lazySchema(() =>
  z.object({
    limit: z.optional(countParam(CLAWHUB_PAGE_MAX)).check(z.describe('skills per page (1–200, default 25)')),
    cursor: z.optional(z.string().check(z.maxLength(200))).check(z.describe('the nextCursor of the page before (sort=updated and createdAt)')),
    sort: z
      .optional(z.enum(CLAWHUB_SORTS))
      .check(
        z.describe(
          'updated (default, last updated first); createdAt (first published, newest first, what clawhub explore asks for); downloads, installs, installsCurrent and installsAllTime all rank by installs; trending, stars and rating are not supported',
        ),
      ),
  }),
);

export const clawhubResolveQuerySchema = lazySchema(() =>
  z.object({
    slug: z.string().check(z.minLength(1), z.maxLength(200)),
    ownerHandle,
    hash: z
      .pipe(
        z.string().check(z.regex(/^[0-9a-fA-F]{64}$/, '64 hexadecimal characters')),
        z.transform((hash) => hash.toLowerCase()),
      )
      .check(z.describe("the folder's fingerprint, as clawdhub computes it")),
  }),
);

export const clawhubDownloadQuerySchema = lazySchema(() =>
  z.object({
    slug: z.string().check(z.minLength(1), z.maxLength(200)),
    ownerHandle,
    version: z.optional(z.string().check(z.minLength(1), z.maxLength(limits.versionChars))).check(z.describe('exact semver; default the current version')),
    tag: z.optional(z.string().check(z.minLength(1), z.maxLength(100))).check(z.describe('only latest: Skillpress has no other tags')),
  }),
);

export const clawhubSkillQuerySchema = lazySchema(() => z.object({ ownerHandle }));

export const clawhubVersionsQuerySchema = lazySchema(() =>
  z.object({
    ownerHandle,
    limit: z.optional(countParam(CLAWHUB_PAGE_MAX)).check(z.describe('versions per page (1–200, default 25)')),
    cursor: z.optional(z.string().check(z.maxLength(200))).check(z.describe('the nextCursor of the page before')),
  }),
);

export const clawhubFileQuerySchema = lazySchema(() =>
  z.object({
    ownerHandle,
    path: z.string().check(z.minLength(1), z.maxLength(limits.filenameChars), z.describe("the file's path in the skill")),
    version: z.optional(z.string().check(z.minLength(1), z.maxLength(limits.versionChars))).check(z.describe('default: the current version')),
    tag: z.optional(z.string().check(z.minLength(1), z.maxLength(100))).check(z.describe('only latest')),
  }),
);

export const clawhubWellKnownSchema = lazySchema(() => z.object({ apiBase: z.string().check(z.describe('where the ClawHub-compatible API is: this origin')) }));

export const clawhubWhoamiSchema = lazySchema(() =>
  z.object({
    user: z.object({ handle: z.nullable(z.string()), displayName: z.nullable(z.string()), image: z.nullable(z.string()) }),
  }),
);

const clawhubVersionSchema = lazySchema(() =>
  z.object({
    version: z.string(),
    createdAt: z.number().check(z.describe('epoch milliseconds')),
    changelog: z.string(),
    license: z
      .nullable(z.literal('MIT-0'))
      .check(z.describe("the SKILL.md license when it is MIT-0, else null: ClawHub's clients accept no other value (and print MIT-0 for null)")),
    declaredLicense: z.nullable(z.string()).check(z.describe('the SKILL.md license as written, whatever it is (clawhub inspect --json shows it)')),
  }),
);

const clawhubSkillSchema = lazySchema(() =>
  z.object({
    slug: z.string(),
    displayName: z.string(),
    summary: z.nullable(z.string()),
    tags: z.object({ latest: z.string() }).check(z.describe('latest: the current version')),
    stats: z.object({ downloads: z.number(), installsAllTime: z.number() }).check(z.describe('installs counted by Skillpress, all sources')),
    createdAt: z.number().check(z.describe('epoch milliseconds')),
    updatedAt: z.number().check(z.describe('epoch milliseconds')),
  }),
);
export type ClawhubSkill = z.output<typeof clawhubSkillSchema>;
export type ClawhubVersion = z.output<typeof clawhubVersionSchema>;

export const clawhubSkillListSchema = lazySchema(() =>
  z.object({
    items: z.array(z.extend(clawhubSkillSchema, { latestVersion: clawhubVersionSchema })),
    nextCursor: z.nullable(z.string()),
  }),
);

/**
 * ClawHub's moderation fields, carrying our scan of the current version (docs/api.md §14.3):
 * `clawhub install` and `update` refuse a skill with `isMalwareBlocked` and ask for `--force`
 * (or a yes on a terminal) before one with `isSuspicious`.
 */
const clawhubModerationSchema = lazySchema(() =>
  z.object({
    isSuspicious: z.boolean().check(z.describe('the current version stands as suspicious')),
    isMalwareBlocked: z.boolean().check(z.describe('the current version stands as malicious')),
    verdict: z.enum(VERDICTS).check(z.describe('the verdict the current version stands under (clean once an admin approved it on appeal)')),
    reasonCodes: z.array(z.string()).check(z.describe("the rules of the scan's findings of medium severity or more, sorted; none when it stands as clean")),
    summary: z.nullable(z.string()).check(z.describe('how many findings of which severity; null when it stands as clean')),
    engineVersion: z.nullable(z.string()).check(z.describe("the scan's rulesVersion; null for a version stored before scanning")),
    updatedAt: z.nullable(z.number()).check(z.describe('when the scan ran, epoch milliseconds')),
  }),
);
export type ClawhubModeration = z.output<typeof clawhubModerationSchema>;

export const clawhubSkillPageSchema = lazySchema(() =>
  z.object({
    skill: clawhubSkillSchema,
    latestVersion: clawhubVersionSchema,
    owner: clawhubWhoamiSchema.shape.user,
    moderation: clawhubModerationSchema,
  }),
);

export const clawhubVersionListSchema = lazySchema(() =>
  z.object({
    items: z.array(z.pick(clawhubVersionSchema, { version: true, createdAt: true, changelog: true })),
    nextCursor: z.nullable(z.string()),
  }),
);

export const clawhubVersionPageSchema = lazySchema(() =>
  z.object({
    skill: z.object({ slug: z.string(), displayName: z.string() }),
    version: z.extend(clawhubVersionSchema, {
      files: z.array(z.object({ path: z.string(), size: z.number(), sha256: z.string(), contentType: z.nullable(z.string()) })),
    }),
  }),
);

export const clawhubSearchSchema = lazySchema(() =>
  z.object({
    results: z.array(
      z.object({
        slug: z.string(),
        displayName: z.string(),
        summary: z.nullable(z.string()),
        version: z.string(),
        score: z.number().check(z.describe('orders the results, 1 for the best; not a similarity')),
        updatedAt: z.number(),
        ownerHandle: z.string().check(z.describe("the author's login")),
        owner: z.object({ handle: z.string(), displayName: z.nullable(z.string()), image: z.nullable(z.string()) }),
      }),
    ),
  }),
);

export const clawhubResolveSchema = lazySchema(() =>
  z.object({
    slug: z.string(),
    match: z.nullable(z.object({ version: z.string() })).check(z.describe('the version whose files the folder holds, if any')),
    latestVersion: z.nullable(z.object({ version: z.string() })),
  }),
);
