import * as z from 'zod/mini';
import type { Provenance } from './provenance.ts';
import { lazySchema } from './lazy-schema.ts';

/**
 * The schema of a version's provenance (core/provenance.ts): the stored version, the registry
 * documents and the OpenAPI document. zod/mini, so the store's item schemas can use it without
 * the rest of zod.
 */
export const provenanceSchema = lazySchema(
  () =>
    z.object({
      provider: z.literal('github'),
      repository: z.string(),
      workflow: z.string(),
      workflowRef: z.string(),
      ref: z.string(),
      sha: z.string(),
      runId: z.string(),
      runAttempt: z.string(),
      environment: z.optional(z.string()),
      issuer: z.string(),
    }) satisfies z.ZodMiniType<Provenance>,
);
