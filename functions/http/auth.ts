import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { DomainError, unauthenticated } from '#core/errors';
import { SESSION } from '#core/policy';
import { apiKeyOwner, recordKeyUse } from '../services/api-keys.ts';
import type { Principal } from '../services/authorization.ts';
import { sessionUser } from '../services/sign-in.ts';
import { publishTokenPrincipal } from '../services/publish-tokens.ts';
import type { AppEnv } from './env.ts';
import { checkOrigin } from './site-origin.ts';

/**
 * Who is calling. Each endpoint says which credentials it accepts (docs/api.md §4): a session
 * cookie (browser), an API key (`Authorization: Bearer sk_...`), or either.
 */

export const SESSION_COOKIE = 'skillpress_session';

/** The user, and the credential they came with: a session (everything the user may do) or an API key (perhaps less). */
export type Caller = Principal;

type Ctx = Context<AppEnv>;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The caller's session, for endpoints that take only a session. API keys are refused with 401. */
export async function requireSession(c: Ctx): Promise<Caller> {
  const caller = await sessionCaller(c);
  if (!caller) {
    throw unauthenticated(c.req.header('authorization') ? 'This endpoint accepts only a browser session, not an API key' : 'Sign in first');
  }
  if (!SAFE_METHODS.has(c.req.method)) checkOrigin(c);
  return caller;
}

/** The caller's API key, for endpoints that take only a key (publishing from CI). */
export async function requireApiKey(c: Ctx): Promise<Caller> {
  const caller = await apiKeyCaller(c);
  if (!caller) throw unauthenticated('Send a valid API key as Authorization: Bearer sk_... (or a publish token from POST /api/oidc/exchange)');
  return caller;
}

/** An API key when an Authorization header is present, else the session. */
export async function requireSessionOrApiKey(c: Ctx): Promise<Caller> {
  if (c.req.header('authorization') !== undefined) return requireApiKey(c);
  return requireSession(c);
}

/**
 * Whoever the request's credentials name, for endpoints that open more to callers who show one
 * (delivery): the API key when an Authorization header is sent (401 when it is not a live key),
 * else the session if there is a live one, else undefined. Reads nothing without credentials.
 */
export async function credentialCaller(c: Ctx): Promise<Caller | undefined> {
  if (c.req.header('authorization') !== undefined) return requireApiKey(c);
  return getCookie(c, SESSION_COOKIE) === undefined ? undefined : sessionCaller(c);
}

/** The session's caller if there is a live one; never throws for a bad cookie. */
export async function sessionCaller(c: Ctx): Promise<Caller | undefined> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token || token.length > 200) return undefined;
  const user = await sessionUser(c.var.deps, token);
  return user ? { user, credential: SESSION } : undefined;
}

/**
 * The caller of the request's bearer credential: an API key (`sk_`) or a CI publish token (`spt_`,
 * from the OIDC exchange). A publish token is a credential like a key, with the `publish` scope
 * alone and narrowed to its skills: wherever a key is taken, the policy, not this layer, refuses
 * what it may not do (`403 insufficient_scope`). Undefined for a missing, malformed, unknown or
 * revoked credential; 401 `expired_key` for an expired one.
 */
export async function apiKeyCaller(c: Ctx): Promise<Caller | undefined> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
  if (!match) return undefined;
  const publishToken = await publishTokenPrincipal(c.var.deps, match[1]!);
  if (publishToken === 'expired') throw new DomainError('expired_key', 'This publish token has expired (they last 15 minutes); exchange a new OIDC token');
  if (publishToken) return publishToken;
  const found = await apiKeyOwner(c.var.deps, match[1]!);
  if (!found) return undefined;
  if (found === 'expired') throw new DomainError('expired_key', 'This API key has expired; create a new one in the dashboard');
  c.set('apiKeyUsed', found.use);
  return { user: found.user, credential: found.credential };
}

/** Records the use of the request's API key, if one authenticated it and the request succeeded. */
export async function recordKeyUseIfAccepted(c: Ctx): Promise<void> {
  const used = c.var.apiKeyUsed;
  if (!used || c.res.status >= 400) return;
  const { deps } = c.var;
  // A hint for the key's owner: failing to write it must not fail a request that succeeded.
  await recordKeyUse(deps, used).catch((error: unknown) => deps.log.warn('could not record an API key use', { error: (error as Error).name }));
}

export function setSessionCookie(c: Ctx, token: string, expires: Date): void {
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'Lax',
    path: '/',
    secure: isHttps(c),
    expires,
  });
}

export function clearSessionCookie(c: Ctx): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: isHttps(c) });
}

export function sessionToken(c: Ctx): string | undefined {
  return getCookie(c, SESSION_COOKIE);
}

/** True when the browser reached us over https (directly or through CloudFront), so cookies get Secure. */
export function isHttps(c: Ctx): boolean {
  return new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';
}
