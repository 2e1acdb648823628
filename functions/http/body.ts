import type { Context } from 'hono';
import type * as z from 'zod/mini';
import { DomainError, invalidRequest } from '#core/errors';
import { validate } from '#core/validate';

/**
 * Reads a JSON request body and validates it against `schema`. 415 without a JSON content type,
 * 400 for malformed JSON or a schema violation (with the field issues as details). The size
 * limit is enforced before this by the body-limit middleware.
 */
export async function readBody<S extends z.ZodMiniType>(c: Context, schema: S): Promise<z.output<S>> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type.trim())) {
    throw new DomainError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json');
  }
  const text = await c.req.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidRequest('The body is not valid JSON');
  }
  return validate(schema, value);
}
