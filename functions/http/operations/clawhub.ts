import * as z from 'zod';
import {
  clawhubDownloadQuerySchema,
  clawhubFileQuerySchema,
  clawhubSkillQuerySchema,
  clawhubUploadedSchema,
  clawhubUploadUrlBodySchema,
  clawhubUploadUrlSchema,
  clawhubVersionListSchema,
  clawhubVersionPageSchema,
  clawhubVersionsQuerySchema,
  clawhubListQuerySchema,
  clawhubPublishedSchema,
  clawhubPublishFormSchema,
  clawhubResolveQuerySchema,
  clawhubSearchQuerySchema,
  clawhubSearchSchema,
  clawhubSkillListSchema,
  clawhubSkillPageSchema,
  clawhubResolveSchema,
  clawhubWellKnownSchema,
  clawhubWhoamiSchema,
} from '#core/clawhub-schemas';
import { operations } from '../operation.ts';

const tag = {
  name: 'ClawHub',
  description:
    "ClawHub's registry API, so the clawhub CLI (0.23.3, and clawdhub 0.3.0) can search, explore, inspect, install, update, publish and sync here: " +
    'its paths and shapes, times in epoch milliseconds, errors as ClawHub words them (text/plain, the code in X-Error-Code). Lists and searches hold the free skills (docs/api.md §14).',
};

/** Reading the registry as ClawHub clients do: discovery, who a key is, search, lists, a skill, resolve, download. */
export const clawhubOperations = operations(tag, {
  clawhubWellKnown: {
    method: 'get',
    path: '/.well-known/clawhub.json',
    summary: 'Where the ClawHub-compatible API is (clawhub --site discovers it here)',
    description: 'Cache-Control: public, max-age=300; readable from any origin. Sign in with an API key: clawhub login --token sk_…',
    auth: 'none',
    success: { status: 200, description: 'The API base: this origin', schema: clawhubWellKnownSchema },
  },
  clawhubWellKnownLegacy: {
    method: 'get',
    path: '/.well-known/clawdhub.json',
    summary: 'The same, where clients named clawdhub look for it',
    description: 'Cache-Control: public, max-age=300; readable from any origin.',
    auth: 'none',
    success: { status: 200, description: 'The API base: this origin', schema: clawhubWellKnownSchema },
  },
  clawhubWhoami: {
    method: 'get',
    path: '/api/v1/whoami',
    summary: "The API key's account, as clawdhub login and whoami check it",
    auth: 'apiKey',
    success: { status: 200, description: 'handle is the login', schema: clawhubWhoamiSchema },
  },
  clawhubSearch: {
    method: 'get',
    path: '/api/v1/search',
    summary: 'Free skills matching every word of q, best first',
    auth: 'none',
    query: clawhubSearchQuerySchema,
    success: { status: 200, description: 'OK; no q finds nothing', schema: clawhubSearchSchema },
  },
  clawhubListSkills: {
    method: 'get',
    path: '/api/v1/skills',
    summary: 'A page of free skills: newest first with a cursor, or the most installed',
    auth: 'none',
    query: clawhubListQuerySchema,
    success: { status: 200, description: 'OK; nextCursor is null on the last page and for install orders', schema: clawhubSkillListSchema },
    errors: ['not_supported'],
  },
  clawhubGetSkill: {
    method: 'get',
    path: '/api/v1/skills/{slug}',
    summary: 'A skill, its current version and its author',
    auth: 'none',
    query: clawhubSkillQuerySchema,
    success: { status: 200, description: 'OK', schema: clawhubSkillPageSchema },
    errors: ['not_found', 'quarantined'],
  },
  clawhubListVersions: {
    method: 'get',
    path: '/api/v1/skills/{slug}/versions',
    summary: "A skill's versions, newest published first (clawhub inspect --versions); yanked ones left out",
    auth: 'none',
    query: clawhubVersionsQuerySchema,
    success: { status: 200, description: 'OK; nextCursor is null on the last page', schema: clawhubVersionListSchema },
    errors: ['not_found', 'quarantined'],
  },
  clawhubGetVersion: {
    method: 'get',
    path: '/api/v1/skills/{slug}/versions/{version}',
    summary: 'One version and its files (clawhub install --version, inspect --files)',
    description: 'Files by path, size, SHA-256 and media type; no content. A yanked version is answered: it is still installable by its version.',
    auth: 'none',
    query: clawhubSkillQuerySchema,
    success: { status: 200, description: 'OK', schema: clawhubVersionPageSchema },
    errors: ['not_found', 'quarantined'],
  },
  clawhubGetFile: {
    method: 'get',
    path: '/api/v1/skills/{slug}/file',
    summary: 'One text file of a free skill (clawhub inspect --file)',
    description: 'text/plain; charset=utf-8; a binary file is 415, a paid skill 402. Not counted as an install.',
    auth: 'none',
    query: clawhubFileQuerySchema,
    success: { status: 200, description: "The file's text" },
    errors: ['not_found', 'quarantined', 'payment_required', 'not_supported', 'unsupported_media_type'],
  },
  clawhubResolve: {
    method: 'get',
    path: '/api/v1/resolve',
    summary: 'Which version an installed folder holds, by its fingerprint',
    description: 'The fingerprint is the one clawdhub computes over the folder (docs/api.md §14); no match is match: null.',
    auth: 'none',
    query: clawhubResolveQuerySchema,
    success: { status: 200, description: 'OK', schema: clawhubResolveSchema },
    errors: ['not_found', 'quarantined'],
  },
  clawhubDownload: {
    method: 'get',
    path: '/api/v1/download',
    summary: 'A version as a ZIP, counted as one install (source api)',
    description:
      'Content-Type: application/zip; Cache-Control: private, no-store. The checks of GET /api/deliver/{skillId}: a quarantined skill is a 403, ' +
      'a paid one a 402 (a ClawHub client shows no credential). A HEAD is not counted.',
    auth: 'none',
    query: clawhubDownloadQuerySchema,
    success: { status: 200, description: 'The ZIP: the files at its root' },
    errors: ['invalid_request', 'not_found', 'quarantined', 'payment_required', 'not_supported'],
  },
});

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
      'its SKILL.md front matter (description, metadata.category, else other), and it starts at the version given.',
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
  },
  clawhubUpload: {
    method: 'post',
    path: '/api/v1/skills/-/upload',
    summary: 'The bytes of a file announced with upload-url, at the URL it gave',
    description: 'Any Content-Type; the body is the file. They must match the ticket: a different size or digest is a 400.',
    auth: 'apiKey',
    query: z.object({ ticket: z.string().min(1).max(200).describe('the uploadTicket') }),
    rawBody: z.string().meta({ format: 'binary' }).describe("the file's bytes"),
    success: { status: 200, description: 'Stored; storageId is the SHA-256', schema: clawhubUploadedSchema },
    errors: ['not_found'],
  },
});

/** ClawHub endpoints with no counterpart here: each answers 400 not_supported, saying why. */
export const clawhubUnsupportedOperations = operations(tag, {
  clawhubDeleteSkill: {
    method: 'delete',
    path: '/api/v1/skills/{slug}',
    summary: 'Not supported: published skills are never deleted here',
    auth: 'none',
    success: { status: 204, description: 'Never answered' },
    errors: ['not_supported'],
  },
  clawhubUndeleteSkill: {
    method: 'post',
    path: '/api/v1/skills/{slug}/undelete',
    summary: 'Not supported: nothing is deleted, so nothing is restored',
    auth: 'none',
    success: { status: 204, description: 'Never answered' },
    errors: ['not_supported'],
  },
  clawhubStar: {
    method: 'post',
    path: '/api/v1/stars/{slug}',
    summary: 'Not supported: Skillpress has no stars',
    auth: 'none',
    success: { status: 204, description: 'Never answered' },
    errors: ['not_supported'],
  },
  clawhubUnstar: {
    method: 'delete',
    path: '/api/v1/stars/{slug}',
    summary: 'Not supported: Skillpress has no stars',
    auth: 'none',
    success: { status: 204, description: 'Never answered' },
    errors: ['not_supported'],
  },
});
