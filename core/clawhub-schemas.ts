import * as z from 'zod';
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
const ownerHandle = lazySchema(() => z.string().max(100).optional().describe("the author's login (ClawHub's owner handle); another finds nothing"));

/** A positive whole number in a query string, at most `max`. */
const countParam = (max: number) =>
  z
    .string()
    .regex(/^\d{1,4}$/, 'a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1).max(max));

export const CLAWHUB_PAGE_MAX = 200;

export const clawhubSearchQuerySchema = lazySchema(() =>
  z.object({
    q: z.string().max(200).optional().describe('the words to find; none finds nothing'),
    limit: countParam(CLAWHUB_PAGE_MAX).optional().describe('at most this many results (1–200, default 20)'),
  }),
);

/** The orders `clawdhub explore --sort` asks for, by the names it sends. */
export const CLAWHUB_SORTS = ['updated', 'createdAt', 'downloads', 'installs', 'installsCurrent', 'installsAllTime', 'trending', 'stars', 'rating'] as const;
export type ClawhubSort = (typeof CLAWHUB_SORTS)[number];

export const clawhubListQuerySchema = lazySchema(() =>
  z.object({
    limit: countParam(CLAWHUB_PAGE_MAX).optional().describe('skills per page (1–200, default 25)'),
    cursor: z.string().max(200).optional().describe('the nextCursor of the page before (sort=updated and createdAt)'),
    sort: z
      .enum(CLAWHUB_SORTS)
      .optional()
      .describe(
        'updated (default, last updated first); createdAt (first published, newest first, what clawhub explore asks for); downloads, installs, installsCurrent and installsAllTime all rank by installs; trending, stars and rating are not supported',
      ),
  }),
);

export const clawhubResolveQuerySchema = lazySchema(() =>
  z.object({
    slug: z.string().min(1).max(200),
    ownerHandle,
    hash: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, '64 hexadecimal characters')
      .transform((hash) => hash.toLowerCase())
      .describe("the folder's fingerprint, as clawdhub computes it"),
  }),
);

export const clawhubDownloadQuerySchema = lazySchema(() =>
  z.object({
    slug: z.string().min(1).max(200),
    ownerHandle,
    version: z.string().min(1).max(limits.versionChars).optional().describe('exact semver; default the current version'),
    tag: z.string().min(1).max(100).optional().describe('only latest: Skillpress has no other tags'),
  }),
);

export const clawhubSkillQuerySchema = lazySchema(() => z.object({ ownerHandle }));

export const clawhubVersionsQuerySchema = lazySchema(() =>
  z.object({
    ownerHandle,
    limit: countParam(CLAWHUB_PAGE_MAX).optional().describe('versions per page (1–200, default 25)'),
    cursor: z.string().max(200).optional().describe('the nextCursor of the page before'),
  }),
);

export const clawhubFileQuerySchema = lazySchema(() =>
  z.object({
    ownerHandle,
    path: z.string().min(1).max(limits.filenameChars).describe("the file's path in the skill"),
    version: z.string().min(1).max(limits.versionChars).optional().describe('default: the current version'),
    tag: z.string().min(1).max(100).optional().describe('only latest'),
  }),
);

export const clawhubWellKnownSchema = lazySchema(() => z.object({ apiBase: z.string().describe('where the ClawHub-compatible API is: this origin') }));

export const clawhubWhoamiSchema = lazySchema(() =>
  z.object({
    user: z.object({ handle: z.string().nullable(), displayName: z.string().nullable(), image: z.string().nullable() }),
  }),
);

const clawhubVersionSchema = lazySchema(() =>
  z.object({
    version: z.string(),
    createdAt: z.number().describe('epoch milliseconds'),
    changelog: z.string(),
    license: z
      .literal('MIT-0')
      .nullable()
      .describe("the SKILL.md license when it is MIT-0, else null: ClawHub's clients accept no other value (and print MIT-0 for null)"),
    declaredLicense: z.string().nullable().describe('the SKILL.md license as written, whatever it is (clawhub inspect --json shows it)'),
  }),
);

const clawhubSkillSchema = lazySchema(() =>
  z.object({
    slug: z.string(),
    displayName: z.string(),
    summary: z.string().nullable(),
    tags: z.object({ latest: z.string() }).describe('latest: the current version'),
    stats: z.object({ downloads: z.number(), installsAllTime: z.number() }).describe('installs counted by Skillpress, all sources'),
    createdAt: z.number().describe('epoch milliseconds'),
    updatedAt: z.number().describe('epoch milliseconds'),
  }),
);
export type ClawhubSkill = z.output<typeof clawhubSkillSchema>;
export type ClawhubVersion = z.output<typeof clawhubVersionSchema>;

export const clawhubSkillListSchema = lazySchema(() =>
  z.object({
    items: z.array(clawhubSkillSchema.extend({ latestVersion: clawhubVersionSchema })),
    nextCursor: z.string().nullable(),
  }),
);

/**
 * ClawHub's moderation fields, carrying our scan of the current version (docs/api.md §14.3):
 * `clawhub install` and `update` refuse a skill with `isMalwareBlocked` and ask for `--force`
 * (or a yes on a terminal) before one with `isSuspicious`.
 */
const clawhubModerationSchema = lazySchema(() =>
  z.object({
    isSuspicious: z.boolean().describe('the current version stands as suspicious'),
    isMalwareBlocked: z.boolean().describe('the current version stands as malicious'),
    verdict: z.enum(VERDICTS).describe('the verdict the current version stands under (clean once an admin approved it on appeal)'),
    reasonCodes: z.array(z.string()).describe("the rules of the scan's findings of medium severity or more, sorted; none when it stands as clean"),
    summary: z.string().nullable().describe('how many findings of which severity; null when it stands as clean'),
    engineVersion: z.string().nullable().describe("the scan's rulesVersion; null for a version stored before scanning"),
    updatedAt: z.number().nullable().describe('when the scan ran, epoch milliseconds'),
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
    items: z.array(clawhubVersionSchema.pick({ version: true, createdAt: true, changelog: true })),
    nextCursor: z.string().nullable(),
  }),
);

export const clawhubVersionPageSchema = lazySchema(() =>
  z.object({
    skill: z.object({ slug: z.string(), displayName: z.string() }),
    version: clawhubVersionSchema.extend({
      files: z.array(z.object({ path: z.string(), size: z.number(), sha256: z.string(), contentType: z.string().nullable() })),
    }),
  }),
);

export const clawhubSearchSchema = lazySchema(() =>
  z.object({
    results: z.array(
      z.object({
        slug: z.string(),
        displayName: z.string(),
        summary: z.string().nullable(),
        version: z.string(),
        score: z.number().describe('orders the results, 1 for the best; not a similarity'),
        updatedAt: z.number(),
        ownerHandle: z.string().describe("the author's login"),
        owner: z.object({ handle: z.string(), displayName: z.string().nullable(), image: z.string().nullable() }),
      }),
    ),
  }),
);

export const clawhubResolveSchema = lazySchema(() =>
  z.object({
    slug: z.string(),
    match: z.object({ version: z.string() }).nullable().describe('the version whose files the folder holds, if any'),
    latestVersion: z.object({ version: z.string() }).nullable(),
  }),
);
