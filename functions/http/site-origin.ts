import type { Context } from 'hono';
import { DomainError } from '#core/errors';
import type { AppEnv } from './env.ts';

/**
 * The site's origin (docs/api.md §4.3): what session writes must come from, and what redirects
 * back to the site are built on. `SITE_ORIGIN` when the server is configured with one (production
 * always is). Without it, the origin the request was addressed to, but only when that is a
 * loopback address (`localhost`, `127.0.0.0/8`, `[::1]`): that origin comes from the `Host`
 * header, which a page on another site controls once its own name resolves to this machine
 * (DNS rebinding), so no other host is trusted without `SITE_ORIGIN`.
 */
export function siteOrigin(c: Context<AppEnv>): string | undefined {
  const configured = c.var.deps.config.siteOrigin;
  if (configured) return configured;
  const url = new URL(c.req.url);
  return isLoopback(url.hostname) ? url.origin : undefined;
}

/** {@link siteOrigin}, or 403 `csrf_rejected` explaining what to configure when there is none. */
export function requireSiteOrigin(c: Context<AppEnv>): string {
  const origin = siteOrigin(c);
  if (origin) return origin;
  throw new DomainError(
    'csrf_rejected',
    `This server was reached as ${new URL(c.req.url).host}, which is not a loopback address, and has no SITE_ORIGIN: set SITE_ORIGIN to the site's origin to sign in and write from it`,
  );
}

/**
 * CSRF defence for cookie-authenticated writes and the dev sign-in: the browser's `Origin` must
 * be the site's. API keys are exempt because a browser never attaches them on its own.
 */
export function checkOrigin(c: Context<AppEnv>): void {
  const expected = requireSiteOrigin(c);
  if (c.req.header('origin') !== expected)
    throw new DomainError(
      'csrf_rejected',
      `Signing in, and every write made with a session, must send Origin: ${expected} (browsers send it themselves; with curl, add -H "origin: ${expected}")`,
    );
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}
