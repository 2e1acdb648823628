import type * as z from 'zod/mini';
import { invalidRequest } from './errors.ts';
import { issueDetails } from './schema-fields.ts';

/**
 * `value` as `schema` reads it, or an `invalid_request` naming the first problem in its message
 * and up to 20 in its details (docs/api.md §5.1): how every body and form the API reads is checked.
 */
export function validate<S extends z.ZodMiniType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  const where = first && first.path.length > 0 ? first.path.join('.') : 'body';
  throw invalidRequest(first ? `${where}: ${first.message}` : 'The body does not match the schema', issueDetails(parsed.error));
}
