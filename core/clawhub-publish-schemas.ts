import * as z from 'zod/mini';
import { limits } from './limits.ts';
import { changelogSchema, slugSchema, visibleText } from './schema-fields.ts';
import { lazySchema } from './lazy-schema.ts';

/**
 * What a ClawHub client sends to publish (docs/api.md §14.3) and what it gets back: a file sent
 * ahead (`clawhub` 0.23), the JSON publish that names those files, `clawdhub` 0.3's multipart
 * form. Apart from the reads of clawhub-schemas.ts, as the two are served by two Lambdas.
 */

const sha256Hex = lazySchema(() =>
  z.pipe(
    z.string().check(z.regex(/^[0-9a-fA-F]{64}$/, '64 hexadecimal characters')),
    z.transform((hash) => hash.toLowerCase()),
  ),
);

/** `POST /api/v1/skills/-/upload-url`: one file `clawhub publish` is about to send. */
export const clawhubUploadUrlBodySchema = lazySchema(() =>
  z.object({
    path: z.string().check(z.minLength(1), z.maxLength(limits.filenameChars)),
    size: z.number().check(z.int(), z.minimum(0), z.maximum(limits.fileBytes)),
    sha256: sha256Hex,
    contentType: z.optional(z.string().check(z.maxLength(200))),
  }),
);

export const clawhubUploadUrlSchema = lazySchema(() =>
  z.object({
    uploadUrl: z.string().check(z.describe('where to POST the bytes, with the same API key')),
    uploadTicket: z.string().check(z.describe('names the file (path, size, SHA-256) for the publish')),
  }),
);

export const clawhubUploadedSchema = lazySchema(() =>
  z.object({ storageId: z.string().check(z.describe("the bytes' SHA-256: the publish names the file by it")) }),
);

/**
 * A JSON publish, as `clawhub` 0.23 sends it after uploading each file. What ClawHub records and
 * Skillpress does not (topics, a source repository, the licence terms it makes authors accept)
 * is read and set aside; forks and moving a skill to another owner have no counterpart.
 */
export const clawhubJsonPublishSchema = lazySchema(() =>
  z.object({
    slug: slugSchema,
    displayName: visibleText(100),
    ownerHandle: z.optional(z.string().check(z.maxLength(100))),
    version: z.string().check(z.minLength(1), z.maxLength(limits.versionChars)),
    changelog: z._default(changelogSchema, ''),
    acceptLicenseTerms: z.optional(z.boolean()),
    tags: z
      .optional(z.array(z.string()).check(z.maxLength(20)))
      .check(z.refine((tags) => (tags ?? []).every((tag) => tag === 'latest'), 'Skillpress has no tags: the current version is always latest')),
    categories: z.optional(z.array(z.string().check(z.maxLength(100))).check(z.maxLength(20))).check(z.describe("a new skill's category: the first")),
    topics: z.optional(z.array(z.string().check(z.maxLength(100))).check(z.maxLength(50))),
    source: z.optional(z.unknown()),
    sourceOwnerHandle: z.optional(z.string().check(z.maxLength(100))),
    migrateOwner: z
      .optional(z.boolean())
      .check(z.refine((migrate) => migrate !== true, 'Skillpress skills keep their author: publish without --migrate-owner')),
    forkOf: z.optional(z.unknown().check(z.refine((fork) => fork === undefined, 'Skillpress does not record forks: publish without --fork-of'))),
    files: z
      .array(
        z.object({
          path: z.string().check(z.minLength(1), z.maxLength(limits.filenameChars)),
          size: z.number().check(z.int(), z.minimum(0), z.maximum(limits.fileBytes)),
          storageId: z.string().check(z.maxLength(200)),
          sha256: sha256Hex,
          contentType: z.optional(z.string().check(z.maxLength(200))),
          uploadTicket: z.string().check(z.maxLength(2000)),
        }),
      )
      .check(z.minLength(1), z.maxLength(limits.filesPerVersion)),
  }),
);
export type ClawhubJsonPublish = z.output<typeof clawhubJsonPublishSchema>;

/**
 * The `payload` part of a multipart publish, as `clawdhub publish` sends it. `tags` may only say
 * `latest` (what the current version is here anyway); forks have no counterpart.
 */
export const clawhubPublishPayloadSchema = lazySchema(() =>
  z.strictObject({
    slug: slugSchema,
    displayName: visibleText(100),
    version: z.string().check(z.minLength(1), z.maxLength(limits.versionChars)),
    changelog: z._default(changelogSchema, ''),
    tags: z
      .optional(z.array(z.string()).check(z.maxLength(20)))
      .check(z.refine((tags) => (tags ?? []).every((tag) => tag === 'latest'), 'Skillpress has no tags: the current version is always latest')),
    forkOf: z.optional(z.unknown().check(z.refine((fork) => fork === undefined, 'Skillpress does not record forks: publish without --fork-of'))),
  }),
);
export type ClawhubPublishPayload = z.output<typeof clawhubPublishPayloadSchema>;

/** The multipart body, for the OpenAPI document: `route()` does not read it, the handler does. */
export const clawhubPublishFormSchema = lazySchema(() =>
  z.object({
    payload: z.string().check(z.describe('JSON: {slug, displayName, version, changelog, tags?}')),
    files: z.array(z.string().check(z.meta({ format: 'binary' }))).check(z.describe("one part per file, its name the file's path in the skill")),
  }),
);

// Answers.

export const clawhubPublishedSchema = lazySchema(() =>
  z.object({
    ok: z.literal(true),
    skillId: z.string(),
    versionId: z.string().check(z.describe('<slug>@<version>')),
    slug: z.string(),
    version: z.string(),
    publicationStatus: z.literal('published').check(z.describe('public at once (its static files follow within the rebuild targets)')),
  }),
);
