/**
 * Domain errors. Every failure the service reports has a stable `code`; the HTTP layer maps
 * codes to statuses with {@link statusOf} (docs/api.md, "Errors") and nothing else decides a status.
 */

export const errorStatus = {
  invalid_request: 400,
  invalid_skill: 400,
  not_supported: 400,
  unauthenticated: 401,
  expired_key: 401,
  invalid_oidc_token: 401,
  payment_required: 402,
  forbidden: 403,
  csrf_rejected: 403,
  quarantined: 403,
  insufficient_scope: 403,
  not_repo_owner: 403,
  not_found: 404,
  version_exists: 409,
  slug_taken: 409,
  slug_too_similar: 409,
  name_too_similar: 409,
  not_for_sale: 409,
  already_entitled: 409,
  already_reported: 409,
  login_taken: 409,
  already_member: 409,
  last_owner: 409,
  org_not_empty: 409,
  org_full: 409,
  visibility_locked: 409,
  private_dependency: 409,
  too_many_appeals: 409,
  appeal_decided: 409,
  being_observed: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  content_rejected: 422,
  held_for_review: 422,
  rate_limited: 429,
  request_timeout: 408,
  headers_too_large: 431,
  internal: 500,
  github_unavailable: 502,
  payments_unavailable: 503,
  imports_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/** An error the caller can act on. `details` must never carry secrets or paid content. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** Rejected because the caller sent too many requests; carries what the headers need. */
/**
 * 429 `rate_limited`: over a limit of so many requests per window (then `window` says which,
 * for the `RateLimit-*` headers), or contention the client should wait out. Either way the
 * answer carries `Retry-After`.
 */
export class RateLimitedError extends DomainError {
  constructor(
    readonly retryAfterSeconds: number,
    message: string,
    readonly window?: { limit: number; windowSeconds: number },
  ) {
    super('rate_limited', message);
    this.name = 'RateLimitedError';
  }
}

export const invalidRequest = (message: string, details?: unknown) => new DomainError('invalid_request', message, details);
export const unauthenticated = (message = 'Missing or invalid credentials') => new DomainError('unauthenticated', message);
export const forbidden = (message = 'Only the skill author may do this') => new DomainError('forbidden', message);
export const notFound = (message = 'Not found') => new DomainError('not_found', message);
export const payloadTooLarge = (message: string) => new DomainError('payload_too_large', message);

export function statusOf(code: ErrorCode): number {
  return errorStatus[code];
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
