import type { Context } from 'hono';
import type { z } from 'zod';
import { DomainError, invalidRequest } from '#core/errors';
import { issueDetails } from '#core/schemas';

/**
 * Reads a JSON request body and validates it against `schema`. 415 without a JSON content type,
 * 400 for malformed JSON or a schema violation (with the field issues as details). The size
 * limit is enforced before this by the body-limit middleware.
 */
export async function readBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
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
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidRequest(describe(parsed.error), issueDetails(parsed.error));
  return parsed.data;
}

function describe(error: z.ZodError): string {
  const first = error.issues[0];
  if (!first) return 'The body does not match the schema';
  const where = first.path.length > 0 ? first.path.join('.') : 'body';
  return `${where}: ${first.message}`;
}
