import type { Context } from 'hono';
import { type DomainError, isDomainError, RateLimitedError, statusOf } from '#core/errors';
import { errorFields, type Logger } from '../platform/log.ts';

/** An error as an HTTP answer: status, headers (Content-Type and Cache-Control among them) and the JSON body. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The one mapping from errors to HTTP answers (docs/api.md §5). Domain errors keep their code;
 * anything else is logged and becomes a bare 500 `internal` with no stack or vendor message.
 */
export function errorAnswer(error: unknown, log: Logger, request: { method: string; path: string }): ErrorAnswer {
  if (isDomainError(error)) return domainErrorAnswer(error);
  log.error('unhandled error', { ...request, ...errorFields(error) });
  return jsonError(500, { error: { code: 'internal', message: 'Internal error; it has been logged' } });
}

export function domainErrorAnswer(error: DomainError): ErrorAnswer {
  const answer = jsonError(statusOf(error.code), {
    error: { code: error.code, message: error.message, ...(error.details === undefined ? {} : { details: error.details }) },
  });
  if (error instanceof RateLimitedError) {
    answer.headers['Retry-After'] = String(error.retryAfterSeconds);
    if (error.window) Object.assign(answer.headers, rateLimitHeaders(error.window.limit, 0, error.retryAfterSeconds));
  }
  return answer;
}

export function errorResponse(error: unknown, c: Context, log: Logger): Response {
  return toResponse(c, errorAnswer(error, log, { method: c.req.method, path: c.req.path }));
}

export function domainErrorResponse(c: Context, error: DomainError): Response {
  return toResponse(c, domainErrorAnswer(error));
}

function jsonError(status: number, body: object): ErrorAnswer {
  return { status, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }, body: JSON.stringify(body) };
}

function toResponse(c: Context, answer: ErrorAnswer): Response {
  return c.body(answer.body, answer.status as 400, answer.headers);
}

/** IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers), as separate fields. */
export function rateLimitHeaders(limit: number, remaining: number, resetSeconds: number): Record<string, string> {
  return { 'RateLimit-Limit': String(limit), 'RateLimit-Remaining': String(remaining), 'RateLimit-Reset': String(resetSeconds) };
}
