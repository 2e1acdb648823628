import { publishBodySchema, skillPublishedSchema, versionBodySchema, versionCreatedSchema } from '#core/schemas';
import { operations } from '../operation.ts';

/** Publishing skills and their versions (docs/api.md §7.4, §8). */
export const publishingOperations = operations(
  { name: 'Publishing', description: 'New skills and new versions of them; published versions are immutable.' },
  {
    publishSkill: {
      method: 'post',
      path: '/api/publish',
      summary: 'Publish a new skill at version 1.0.0',
      description:
        'Rate limited per author: a success carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset, a 429 also Retry-After. ' +
        'Location names the registry document. The files must be a valid Agent Skill (400 invalid_skill); without files a conforming SKILL.md is written. ' +
        "A slug that reads like another author's skill with 100 installs or more is a 409 slug_too_similar.",
      auth: 'apiKey',
      body: publishBodySchema,
      success: { status: 201, description: 'Created', schema: skillPublishedSchema },
      errors: ['invalid_request', 'invalid_skill', 'payload_too_large', 'slug_taken', 'slug_too_similar', 'rate_limited'],
    },
    publishVersion: {
      method: 'post',
      path: '/api/skills/{id}/versions',
      summary: 'Publish a new version (author only)',
      auth: 'sessionOrApiKey',
      body: versionBodySchema,
      success: { status: 201, description: 'Created', schema: versionCreatedSchema },
      errors: ['invalid_request', 'invalid_skill', 'not_found', 'forbidden', 'payload_too_large', 'version_exists'],
    },
  },
);
