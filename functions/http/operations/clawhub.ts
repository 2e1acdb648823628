import {
  clawhubDownloadQuerySchema,
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
    "ClawHub's registry API, so the clawdhub CLI (0.3.0) can search, install, update and publish here: its paths and shapes, times in epoch " +
    'milliseconds, errors in the shape of this document. Lists and searches hold the free skills (docs/api.md §14).',
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
    success: { status: 200, description: 'OK', schema: clawhubSkillPageSchema },
    errors: ['not_found', 'quarantined'],
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
      'payload_too_large',
      'slug_taken',
      'slug_too_similar',
      'version_exists',
      'content_rejected',
      'rate_limited',
    ],
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
