import { publishBodySchema, skillSchema, versionBodySchema, versionCreatedSchema } from '#core/schemas';
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
        'Location names the registry document.',
      auth: 'apiKey',
      body: publishBodySchema,
      success: { status: 201, description: 'Created', schema: skillSchema },
      errors: ['invalid_request', 'payload_too_large', 'slug_taken', 'rate_limited'],
    },
    publishVersion: {
      method: 'post',
      path: '/api/skills/{id}/versions',
      summary: 'Publish a new version (author only)',
      auth: 'sessionOrApiKey',
      body: versionBodySchema,
      success: { status: 201, description: 'Created', schema: versionCreatedSchema },
      errors: ['invalid_request', 'not_found', 'forbidden', 'payload_too_large', 'version_exists'],
    },
  },
);
