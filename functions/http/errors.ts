import type { Context } from 'hono';
import { type DomainError, isDomainError, RateLimitedError, statusOf } from '#core/errors';
import { errorFields, type Logger } from '../platform/log.ts';

/** An error as an HTTP answer: status, headers (Content-Type and Cache-Control among them) and the body. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The one mapping from errors to HTTP answers (docs/api.md §5). Domain errors keep their code;
 * anything else is logged and becomes a bare 500 `internal` with no stack or vendor message.
 * Under `/api/v1/`, ClawHub's API, the same answer is a line of text as ClawHub's registry words
 * it, which its clients print as they get it, with the code in `X-Error-Code` (docs/api.md §14).
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
  const shaped = c.req.path.startsWith(CLAWHUB_API) ? clawhubText(answer) : answer;
  return c.body(shaped.body, shaped.status as 400, shaped.headers);
}

/** Where ClawHub's API lives, whose clients print an error's body as it comes. */
const CLAWHUB_API = '/api/v1/';

/**
 * An answer as ClawHub's registry gives it: `text/plain`, one message (the issues of a refused
 * body on the lines after it). Its clients recognise two words of its own: `Unauthorized`, which
 * they follow with how to sign in again, and `Forbidden`, which they explain; every other message
 * is ours, and the services of `/api/v1/` word theirs as ClawHub does (`Skill not found`).
 */
function clawhubText(answer: ErrorAnswer): ErrorAnswer {
  const { error } = JSON.parse(answer.body) as { error: { code: string; message: string; details?: { issues?: { path?: unknown[]; message: string }[] } } };
  const issues = (error.details?.issues ?? []).slice(1).map((issue) => `${(issue.path ?? []).join('.') || 'body'}: ${issue.message}`);
  const message = answer.status === 401 ? 'Unauthorized' : error.code === 'forbidden' ? 'Forbidden' : [error.message, ...issues].join('\n');
  const { 'Content-Type': _json, ...headers } = answer.headers;
  return { status: answer.status, headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'X-Error-Code': error.code }, body: message };
}

/** IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers), as separate fields. */
export function rateLimitHeaders(limit: number, remaining: number, resetSeconds: number): Record<string, string> {
  return { 'RateLimit-Limit': String(limit), 'RateLimit-Remaining': String(remaining), 'RateLimit-Reset': String(resetSeconds) };
}
