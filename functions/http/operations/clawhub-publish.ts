import * as z from 'zod/mini';
import {
  clawhubPublishedSchema,
  clawhubPublishFormSchema,
  clawhubUploadedSchema,
  clawhubUploadUrlBodySchema,
  clawhubUploadUrlSchema,
} from '#core/clawhub-publish-schemas';
import { operations } from '../operation.ts';
import { clawhubTag as tag } from './clawhub-tag.ts';
import { lazySchema } from '#core/lazy-schema';

/** `clawdhub publish`, a new skill or a new version (its own Lambda: it writes what publishing writes). */
export const clawhubPublishOperations = operations(tag, {
  clawhubPublish: {
    method: 'post',
    path: '/api/v1/skills',
    summary: "Publish a skill (a new slug) or a new version of one of the caller's skills",
    description:
      'JSON as clawhub 0.23 sends it: {slug, displayName, version, changelog, files: [{path, size, sha256, storageId, uploadTicket}], ownerHandle?, ' +
      'categories?, tags?}, each file uploaded first (POST /api/v1/skills/-/upload-url); or ' +
      'multipart/form-data as clawdhub publish sends it: payload (JSON {slug, displayName, version, changelog, tags?}) and one files part per file. ' +
      "The checks of POST /api/publish and POST /api/skills/{id}/versions, the scan included; a new skill's description and category come from " +
      'its SKILL.md front matter (description, metadata.category, else general), and it starts at the version given.',
    auth: 'apiKey',
    form: clawhubPublishFormSchema,
    success: { status: 201, description: 'Published', schema: clawhubPublishedSchema },
    errors: [
      'invalid_request',
      'invalid_skill',
      'not_found',
      'forbidden',
      'unsupported_media_type',
      'payload_too_large',
      'slug_taken',
      'slug_too_similar',
      'name_too_similar',
      'version_exists',
      'content_rejected',
      'rate_limited',
    ],
  },
});

/** The two steps of sending a file ahead of a JSON publish (clawhub 0.23), served by the publish Lambda. */
export const clawhubUploadOperations = operations(tag, {
  clawhubUploadUrl: {
    method: 'post',
    path: '/api/v1/skills/-/upload-url',
    summary: 'A ticket and a URL to send one file to, ahead of a publish',
    description: 'The ticket admits these bytes (path, size, SHA-256) from this caller for an hour; the publish names the file by it.',
    auth: 'apiKey',
    body: clawhubUploadUrlBodySchema,
    success: { status: 200, description: 'Where to send it', schema: clawhubUploadUrlSchema },
    errors: ['invalid_request', 'insufficient_scope'],
  },
  clawhubUpload: {
    method: 'post',
    path: '/api/v1/skills/-/upload',
    summary: 'The bytes of a file announced with upload-url, at the URL it gave',
    description: 'Any Content-Type; the body is the file. They must match the ticket: a different size or digest is a 400.',
    auth: 'apiKey',
    query: lazySchema(() => z.object({ ticket: z.string().check(z.minLength(1), z.maxLength(200), z.describe('the uploadTicket')) })),
    rawBody: lazySchema(() => z.string().check(z.meta({ format: 'binary' }), z.describe("the file's bytes"))),
    success: { status: 200, description: 'Stored; storageId is the SHA-256', schema: clawhubUploadedSchema },
    errors: ['invalid_request', 'not_found', 'insufficient_scope'],
  },
});
