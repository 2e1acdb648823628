import { exchangeWebFlowCode, getWebFlowAuthorizationUrl } from '@octokit/oauth-methods';
import * as z from 'zod/mini';
import { invalidRequest } from '#core/errors';
import { loginSchema } from '#core/schema-fields';
import type { User } from '#core/schemas';
import type { GitHubConfig } from '../platform/config.ts';
import { githubApi, GitHubError, oauthRequest, statusOfGitHubError } from '../platform/octokit.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * GitHub sign-in with the OAuth web flow (docs/api.md §4): send the browser to GitHub's authorize
 * page, then trade the code it comes back with for a token, and the token for the user. No scope
 * is asked for: the public profile is all Skillpress needs, and the token is dropped afterwards.
 */

export interface GitHubApp {
  config: GitHubConfig;
  clientId: string;
  clientSecret: string;
}

/** The authorize URL on GitHub that the browser is redirected to. */
export function authorizeUrl(app: GitHubApp, state: string, redirectUrl: string): string {
  return getWebFlowAuthorizationUrl({
    clientType: 'oauth-app',
    clientId: app.clientId,
    redirectUrl,
    state,
    scopes: [],
    request: oauthRequest(app.config),
  }).url;
}

// GitHub sends much more; these are the fields a Skillpress user is made of.
const githubUserSchema = lazySchema(() =>
  z.object({
    id: z.number().check(z.int(), z.positive()),
    login: loginSchema,
    name: z.nullish(z.string().check(z.maxLength(255))),
    avatar_url: z.nullish(z.string().check(z.maxLength(2048))),
  }),
);

/**
 * Exchanges the code (once; a code is single-use on GitHub) and reads the user it belongs to.
 * A code GitHub refuses is the caller's mistake (400); anything else is GitHub failing.
 */
export async function userFromCode(app: GitHubApp, code: string, redirectUrl: string): Promise<User> {
  let token: string;
  try {
    const { authentication } = await exchangeWebFlowCode({
      clientType: 'oauth-app',
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      code,
      redirectUrl,
      request: oauthRequest(app.config),
    });
    token = authentication.token;
  } catch (error) {
    const status = statusOfGitHubError(error);
    // The OAuth endpoint answers a bad, expired or reused code with an error body, which octokit
    // turns into a 400.
    if (status === 400) throw invalidRequest('GitHub did not accept the sign-in code; sign in again');
    throw new GitHubError('Could not exchange the GitHub sign-in code', status);
  }

  let data: unknown;
  try {
    ({ data } = await githubApi(app.config, token).request('GET /user'));
  } catch (error) {
    throw new GitHubError('Could not read the GitHub user', statusOfGitHubError(error));
  }
  const parsed = githubUserSchema.safeParse(data);
  if (!parsed.success) throw new GitHubError('GitHub returned a user Skillpress cannot use', 0);
  const { id, login, name, avatar_url } = parsed.data;
  return { id: `gh:${id}`, login, ...(name ? { name } : {}), ...(avatar_url ? { avatarUrl: avatar_url } : {}) };
}
