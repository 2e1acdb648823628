import * as z from 'zod/mini';
import { CATEGORIES, SEVERITIES, VERDICTS } from './finding.ts';
import { lazySchema } from '../lazy-schema.ts';

/**
 * The scan result as the API returns it and the registry stores it (docs/scanning.md): one
 * schema for the response, the stored version, the OpenAPI document and the CLI's reading of it.
 * Written with zod/mini, so the store's item schemas (and the Lambdas that only read items) can
 * use it without the rest of zod.
 */
export const findingSchema = lazySchema(() =>
  z.strictObject({
    rule: z.string(),
    category: z.enum(CATEGORIES),
    severity: z.enum(SEVERITIES),
    file: z.string(),
    line: z.int().check(z.minimum(0)),
    message: z.string(),
  }),
);

/** An admin's approval of a version the scan refused or flagged, on its appeal (docs/api.md §7.15). */
export const reviewSchema = lazySchema(() =>
  z.strictObject({
    by: z.string().check(z.describe("the admin's login")),
    at: z.string().check(z.describe('when they approved it')),
  }),
);

export const scanResultSchema = lazySchema(() =>
  z.strictObject({
    verdict: z.enum(VERDICTS),
    rulesVersion: z.string(),
    findings: z.array(findingSchema),
    reviewed: z
      .optional(reviewSchema)
      .check(z.describe('an admin approved this version on its appeal, findings and all; the verdict stays what the scanner said')),
  }),
);
