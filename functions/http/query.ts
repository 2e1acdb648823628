import type { Context } from 'hono';
import type * as z from 'zod/mini';
import { invalidRequest } from '#core/errors';
import { issueDetails } from '#core/schema-fields';

/**
 * Reads and validates the query string against `schema` (400 with field issues on a violation).
 * A parameter the schema knows that appears twice is refused rather than guessed at; parameters
 * it does not know are ignored, as clients add cache busters and tracking fields.
 */
export function readQuery<S extends z.ZodMiniObject>(c: Context, schema: S): z.output<S> {
  const all = c.req.queries();
  const value: Record<string, string> = {};
  for (const name of Object.keys(schema.shape)) {
    const given = all[name];
    if (!given) continue;
    if (given.length > 1) throw invalidRequest(`The query parameter ${name} is given more than once`, { issues: [{ path: [name], message: 'repeated' }] });
    value[name] = given[0]!;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw invalidRequest(`Query parameter ${first?.path.join('.') ?? ''}: ${first?.message ?? 'invalid'}`, issueDetails(parsed.error));
  }
  return parsed.data;
}
