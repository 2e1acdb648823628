import * as z from 'zod/mini';
import {
  pendingDocumentSchema,
  quarantinedDocumentSchema,
  registryDocumentSchema,
  resolveAnswerSchema,
  resolveQuerySchema,
  versionsDocumentSchema,
} from '#core/schemas';
import { lazySchema } from '#core/lazy-schema';
import { operations } from '../operation.ts';

/** Registry documents read through the API: private skills' (docs/api.md §7.13), and many skills' in one request (§7.17). */
export const registryReadOperations = operations(
  {
    name: 'Private registry',
    description:
      "A skill's registry documents as the caller may see them: how members read their organisation's private skills, and how an install resolves every skill it names in one request.",
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
        schema: lazySchema(() => z.union([z.union([registryDocumentSchema, quarantinedDocumentSchema]), pendingDocumentSchema])),
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
        schema: lazySchema(() => z.union([z.union([versionsDocumentSchema, quarantinedDocumentSchema]), pendingDocumentSchema])),
      },
      errors: ['not_found', 'insufficient_scope'],
    },
    resolveSkills: {
      method: 'get',
      path: '/api/resolve',
      summary: 'Many skills’ registry documents in one request, as an install resolves them',
      description:
        'For each `slug[@spec]` asked for, in order: the registry document /api/registry/{slug} holds, and its versions document when the spec may choose a version the document does not list; ' +
        'or that skill’s error ({code, message}), as a request for it alone would answer. With a session or API key, a skill with no static documents is read for the caller as /api/me/registry/{slug} reads it. ' +
        'Cache-Control: private, no-store.',
      auth: 'optional',
      query: resolveQuerySchema,
      success: { status: 200, description: 'One entry per skill asked for', schema: resolveAnswerSchema },
    },
  },
);
