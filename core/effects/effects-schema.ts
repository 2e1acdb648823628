import * as z from 'zod/mini';
import { ASK_CLASSES, EXECUTE_CLASSES, NETWORK_CLASSES, READ_CLASSES, WRITE_CLASSES } from './effect.ts';
import { lazySchema } from '../lazy-schema.ts';

/**
 * The effects of a version as the registry document will carry them (docs/scanning.md,
 * "Behaviour"): one schema for the stored version, the API and the CLI's reading of them.
 * Written with zod/mini, as the scan result's schema is, so the store's item schemas can use it.
 */
const evidenceSchema = lazySchema(() =>
  z.union([
    z.strictObject({ file: z.string(), line: z.int().check(z.minimum(0)) }),
    z.strictObject({
      step: z.string().check(z.describe('the step of the run: a block of SKILL.md, a script, a package install')),
      event: z.string().check(z.describe('what the trace or the network sink recorded')),
      process: z.optional(z.string()),
      clock: z.enum(['now', 'year-ahead']),
    }),
  ]),
);

function effectSchema<const C extends readonly [string, ...string[]]>(classes: C) {
  return z.strictObject({
    class: z.enum(classes),
    row: z.optional(z.string().check(z.describe('the id of the sensitive-classes row it matched'))),
    reason: z.string(),
    target: z.string(),
    evidence: evidenceSchema,
    source: z.enum(['static', 'observed']),
  });
}

export const honeytokenHitSchema = lazySchema(() =>
  z.strictObject({
    token: z.string(),
    class: z.enum(READ_CLASSES),
    encoding: z.array(z.string()),
  }),
);

const writeSchema = lazySchema(() => z.extend(effectSchema(WRITE_CLASSES), { scope: z.optional(z.enum(['global', 'project'])) }));

const networkSchema = lazySchema(() =>
  z.extend(effectSchema(NETWORK_CLASSES), {
    host: z.string(),
    address: z.optional(z.string()),
    port: z.optional(z.int().check(z.minimum(0), z.maximum(65535))),
    protocol: z.enum(['dns', 'tcp', 'udp', 'http', 'tls']),
    sent: z.optional(z.strictObject({ bytes: z.int().check(z.minimum(0)), honeytokens: z.array(honeytokenHitSchema) })),
  }),
);

export const effectsSchema = lazySchema(() =>
  z.strictObject({
    reads: z.array(effectSchema(READ_CLASSES)),
    writes: z.array(writeSchema),
    network: z.array(networkSchema),
    executes: z.array(effectSchema(EXECUTE_CLASSES)),
    asks: z.array(effectSchema(ASK_CLASSES)),
  }),
);
