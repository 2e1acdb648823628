import * as z from 'zod';
import { limits } from './limits.ts';
import { changelogSchema, slugSchema, visibleText } from './schema-fields.ts';
import { lazySchema } from './lazy-schema.ts';

/**
 * What a ClawHub client sends to publish (docs/api.md §14.3) and what it gets back: a file sent
 * ahead (`clawhub` 0.23), the JSON publish that names those files, `clawdhub` 0.3's multipart
 * form. Apart from the reads of clawhub-schemas.ts, as the two are served by two Lambdas.
 */

const sha256Hex = lazySchema(() =>
  z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, '64 hexadecimal characters')
    .transform((hash) => hash.toLowerCase()),
);

/** `POST /api/v1/skills/-/upload-url`: one file `clawhub publish` is about to send. */
export const clawhubUploadUrlBodySchema = lazySchema(() =>
  z.object({
    path: z.string().min(1).max(limits.filenameChars),
    size: z.number().int().min(0).max(limits.fileBytes),
    sha256: sha256Hex,
    contentType: z.string().max(200).optional(),
  }),
);

export const clawhubUploadUrlSchema = lazySchema(() =>
  z.object({
    uploadUrl: z.string().describe('where to POST the bytes, with the same API key'),
    uploadTicket: z.string().describe('names the file (path, size, SHA-256) for the publish'),
  }),
);

export const clawhubUploadedSchema = lazySchema(() => z.object({ storageId: z.string().describe("the bytes' SHA-256: the publish names the file by it") }));

/**
 * A JSON publish, as `clawhub` 0.23 sends it after uploading each file. What ClawHub records and
 * Skillpress does not (topics, a source repository, the licence terms it makes authors accept)
 * is read and set aside; forks and moving a skill to another owner have no counterpart.
 */
export const clawhubJsonPublishSchema = lazySchema(() =>
  z.object({
    slug: slugSchema,
    displayName: visibleText(100),
    ownerHandle: z.string().max(100).optional(),
    version: z.string().min(1).max(limits.versionChars),
    changelog: changelogSchema.default(''),
    acceptLicenseTerms: z.boolean().optional(),
    tags: z
      .array(z.string())
      .max(20)
      .optional()
      .refine((tags) => (tags ?? []).every((tag) => tag === 'latest'), 'Skillpress has no tags: the current version is always latest'),
    categories: z.array(z.string().max(100)).max(20).optional().describe("a new skill's category: the first"),
    topics: z.array(z.string().max(100)).max(50).optional(),
    source: z.unknown().optional(),
    sourceOwnerHandle: z.string().max(100).optional(),
    migrateOwner: z
      .boolean()
      .optional()
      .refine((migrate) => migrate !== true, 'Skillpress skills keep their author: publish without --migrate-owner'),
    forkOf: z
      .unknown()
      .refine((fork) => fork === undefined, 'Skillpress does not record forks: publish without --fork-of')
      .optional(),
    files: z
      .array(
        z.object({
          path: z.string().min(1).max(limits.filenameChars),
          size: z.number().int().min(0).max(limits.fileBytes),
          storageId: z.string().max(200),
          sha256: sha256Hex,
          contentType: z.string().max(200).optional(),
          uploadTicket: z.string().max(2000),
        }),
      )
      .min(1)
      .max(limits.filesPerVersion),
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
  }),
);
export type ClawhubPublishPayload = z.output<typeof clawhubPublishPayloadSchema>;

/** The multipart body, for the OpenAPI document: `route()` does not read it, the handler does. */
export const clawhubPublishFormSchema = lazySchema(() =>
  z.object({
    payload: z.string().describe('JSON: {slug, displayName, version, changelog, tags?}'),
    files: z.array(z.string().meta({ format: 'binary' })).describe("one part per file, its name the file's path in the skill"),
  }),
);

// Answers.

export const clawhubPublishedSchema = lazySchema(() =>
  z.object({
    ok: z.literal(true),
    skillId: z.string(),
    versionId: z.string().describe('<slug>@<version>'),
    slug: z.string(),
    version: z.string(),
    publicationStatus: z.literal('published').describe('public at once (its static files follow within the rebuild targets)'),
  }),
);
