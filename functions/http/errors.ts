import type { Context } from 'hono';
import { type DomainError, isDomainError, RateLimitedError, statusOf } from '#core/errors';
import { errorFields, type Logger } from '../platform/log.ts';

/**
 * The one mapping from errors to HTTP responses (docs/api.md §5). Domain errors keep their code;
 * anything else is logged and becomes a bare 500 `internal` with no stack or vendor message.
 */
export function errorResponse(error: unknown, c: Context, log: Logger): Response {
  if (isDomainError(error)) return domainErrorResponse(c, error);
  log.error('unhandled error', { method: c.req.method, path: c.req.path, ...errorFields(error) });
  return c.json({ error: { code: 'internal', message: 'Internal error; it has been logged' } }, 500, { 'Cache-Control': 'no-store' });
}

export function domainErrorResponse(c: Context, error: DomainError): Response {
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  if (error instanceof RateLimitedError) {
    headers['Retry-After'] = String(error.retryAfterSeconds);
    Object.assign(headers, rateLimitHeaders(error.limit, 0, error.retryAfterSeconds));
  }
  const body = { error: { code: error.code, message: error.message, ...(error.details === undefined ? {} : { details: error.details }) } };
  return c.json(body, statusOf(error.code) as 400, headers);
}

/** IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers), as separate fields. */
export function rateLimitHeaders(limit: number, remaining: number, resetSeconds: number): Record<string, string> {
  return { 'RateLimit-Limit': String(limit), 'RateLimit-Remaining': String(remaining), 'RateLimit-Reset': String(resetSeconds) };
}
