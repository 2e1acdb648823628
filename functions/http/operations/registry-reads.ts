import { pendingDocumentSchema, quarantinedDocumentSchema, registryDocumentSchema, versionsDocumentSchema } from '#core/schemas';
import { lazySchema } from '#core/lazy-schema';
import { operations } from '../operation.ts';

/** Registry documents read through the API, for private skills (docs/api.md §7.13). */
export const registryReadOperations = operations(
  {
    name: 'Private registry',
    description: "A skill's registry documents as the caller may see them: how members read their organisation's private skills.",
  },
  {
    myRegistryDocument: {
      method: 'get',
      path: '/api/me/registry/{slug}',
      summary: 'A skill’s registry document, private ones included for the members of their organisation',
      description:
        'The document /api/registry/{slug} holds, for any skill the caller may see; Cache-Control: private, no-store. ' +
        'A private skill needs a member’s session or an API key with read that reaches it; anyone else gets the 404 of a slug nobody holds.',
      auth: 'sessionOrApiKey',
      success: {
        status: 200,
        description: 'The registry document',
        schema: lazySchema(() => registryDocumentSchema.or(quarantinedDocumentSchema).or(pendingDocumentSchema)),
      },
      errors: ['not_found', 'insufficient_scope'],
    },
    myVersionsDocument: {
      method: 'get',
      path: '/api/me/registry/{slug}/versions',
      summary: 'Every version of a skill, private ones included for the members of their organisation',
      auth: 'sessionOrApiKey',
      success: {
        status: 200,
        description: 'The versions document',
        schema: lazySchema(() => versionsDocumentSchema.or(quarantinedDocumentSchema).or(pendingDocumentSchema)),
      },
      errors: ['not_found', 'insufficient_scope'],
    },
  },
);
