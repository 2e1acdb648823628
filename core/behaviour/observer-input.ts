import * as z from 'zod/mini';
import { lazySchema } from '../lazy-schema.ts';

/**
 * The observer state machine's input, shared by the publishing side that starts an execution
 * (functions/platform/step-functions.ts) and the sandbox's task that reads it
 * (functions/sandbox-task/task.ts): which version, and its files by content hash, never their bytes.
 */

/** What an execution of the observer state machine is started with: the version, and its files by content hash. */
export const observerInputSchema = lazySchema(() =>
  z.object({
    slug: z.string().check(z.minLength(1), z.maxLength(214)),
    version: z.string().check(z.minLength(1), z.maxLength(256)),
    files: z
      .array(
        z.object({
          filename: z.string().check(z.minLength(1), z.maxLength(1024)),
          sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
          executable: z.optional(z.boolean()),
        }),
      )
      .check(z.minLength(1)),
  }),
);
export type ObserverInput = z.infer<typeof observerInputSchema>;
