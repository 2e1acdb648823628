import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { invalidRequest } from '#core/errors';
import { newSecret } from '../../platform/secrets.ts';
import { gitHubSignIn } from '../../services/sign-in.ts';
import { isHttps, setSessionCookie } from '../auth.ts';
import type { AppEnv, RouteGroup } from '../env.ts';
import { gitHubSignInOperations as op } from '../operations/github-sign-in.ts';
import { requireSiteOrigin } from '../site-origin.ts';
import { route } from '../route.ts';

/**
 * GitHub sign-in (docs/api.md). The `state` round trip ties GitHub's redirect back to the browser
 * that started the sign-in: a random value in an HttpOnly cookie scoped to these two paths, which
 * must equal the `state` query parameter. It is single-use: the callback clears it whatever happens.
 */
export const STATE_COOKIE = 'skillpress_oauth_state';
const STATE_PATH = '/api/auth/github';
const STATE_SECONDS = 10 * 60;
export const SIGNED_IN_REDIRECT = '/dashboard/';

type Ctx = Context<AppEnv>;

export const gitHubSignInRoutes: RouteGroup = (app) => {
  route(app, op.startGitHubSignIn, async (c) => {
    const github = await gitHubSignIn(c.var.deps);
    const state = newSecret();
    setCookie(c, STATE_COOKIE, state, { httpOnly: true, sameSite: 'Lax', path: STATE_PATH, secure: isHttps(c), maxAge: STATE_SECONDS });
    return c.redirect(github.authorizeUrl(state, callbackUrl(c)), 302);
  });

  route(app, op.finishGitHubSignIn, async (c) => {
    const github = await gitHubSignIn(c.var.deps);
    const expected = getCookie(c, STATE_COOKIE);
    deleteCookie(c, STATE_COOKIE, { path: STATE_PATH, secure: isHttps(c) });
    const state = c.req.query('state');
    if (!expected || !state || !sameSecret(expected, state)) {
      throw invalidRequest('The sign-in state is missing or does not match; start again at /api/auth/github');
    }
    const code = c.req.query('code');
    if (!code || code.length > 512) {
      throw invalidRequest(c.req.query('error') === 'access_denied' ? 'GitHub sign-in was cancelled' : 'The callback carries no code');
    }
    const { session } = await github.finish(code, callbackUrl(c));
    setSessionCookie(c, session.token, session.expiresAt);
    return c.redirect(SIGNED_IN_REDIRECT, 302);
  });
};

/** Where GitHub sends the browser back: the site's own origin, as registered in the OAuth app. */
function callbackUrl(c: Ctx): string {
  return `${requireSiteOrigin(c)}/api/auth/github/callback`;
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
