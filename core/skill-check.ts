import * as z from 'zod/mini';
import { effectsSchema } from './effects/effects-schema.ts';
import { scanResultSchema } from './scan/scan-result-schema.ts';
import { lazySchema } from './lazy-schema.ts';
import { filesSchema } from './schemas.ts';
import { loginSchema } from './schema-fields.ts';

/**
 * `POST /api/skills/check` (docs/api.md §7.4): a folder's files as a publish of them would be
 * judged, before anything is stored. The web upload shows its answer as the preview; the CLI
 * could ask it too.
 */

export const skillCheckBodySchema = lazySchema(() =>
  z.strictObject({
    files: filesSchema.check(z.minLength(1), z.describe("the folder's files, as a publish sends them")),
    owner: z
      .optional(loginSchema)
      .check(z.describe('an organisation the new skill would be published into (its owner or maintainer); default: yourself. Ignored for a new version')),
    paid: z
      ._default(z.boolean(), false)
      .check(z.describe('whether the new skill would be paid: its findings then quote nothing. A new version is as paid as its skill')),
  }),
);
export type SkillCheckBody = z.output<typeof skillCheckBodySchema>;

const issueSchema = lazySchema(() =>
  z.object({
    file: z.string(),
    path: z.optional(z.array(z.union([z.string(), z.number()]))),
    line: z
      .optional(z.number().check(z.int(), z.minimum(1)))
      .check(z.describe("the 1-based line of the file: the key at fault, or the front matter's opening for a missing key")),
    message: z.string(),
  }),
);

export const skillCheckSchema = lazySchema(() =>
  z.object({
    target: z
      .optional(
        z.discriminatedUnion('kind', [
          z.object({
            kind: z.literal('skill').check(z.describe('a new skill, published with POST /api/publish (an API key) or POST /api/skills (a session)')),
          }),
          z.object({
            kind: z.literal('version').check(z.describe("a new version of the caller's skill of that slug, published with POST /api/skills/{id}/versions")),
            skillId: z.string(),
            currentVersion: z.string(),
            suggestedVersion: z.string().check(z.describe("the SKILL.md's metadata.version, else the current version with its patch bumped")),
            paid: z.boolean(),
          }),
        ]),
      )
      .check(z.describe('what publishing these files would make; absent while the SKILL.md names no valid slug')),
    listing: z
      .object({
        slug: z.optional(z.string()),
        name: z.optional(z.string()),
        description: z.optional(z.string()),
        category: z.optional(z.string()),
        dependencies: z.record(z.string(), z.string()).check(z.describe('metadata.dependencies, which the publish sends')),
      })
      .check(z.describe('what the SKILL.md lists the skill with, as skillpress publish reads it: the name is its first heading, else the slug')),
    issues: z.array(issueSchema).check(z.describe('every conformance problem (a publish of these files is 400 invalid_skill while there is one)')),
    warnings: z.array(z.string()),
    // The scan a publish would store (a malicious verdict is what its 422 would carry), and what the
    // text says the skill does when it runs, read without running it.
    scan: scanResultSchema,
    effects: effectsSchema,
  }),
);
export type SkillCheck = z.output<typeof skillCheckSchema>;
