/**
 * The security headers every response carries, locally (the HTTP app) and on AWS (CloudFront's
 * response headers policies), from this one table so the two never drift.
 */

/**
 * The site's pages: scripts, styles, fonts and images only from this origin (the site's bundles
 * are external files; a skill's `SKILL.md` shows its images as links, so no third party learns
 * who reads it), API calls to this origin, and no framing.
 */
export const SITE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Everything that is not a page (JSON, archives): nothing in it may load, run or be framed. */
export const DATA_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'; sandbox";

/** The headers besides the policy, the same on every response. */
export const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
} as const;

/** The Content-Security-Policy for a response of this media type. */
export function contentSecurityPolicy(contentType: string | null): string {
  return contentType?.startsWith('text/html') ? SITE_CONTENT_SECURITY_POLICY : DATA_CONTENT_SECURITY_POLICY;
}

/** Every security header for a response of this media type, for responders that build their headers whole. */
export function securityHeadersFor(contentType: string | null): Record<string, string> {
  return { ...SECURITY_HEADERS, 'Content-Security-Policy': contentSecurityPolicy(contentType) };
}
