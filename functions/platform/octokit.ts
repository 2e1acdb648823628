import { Octokit } from '@octokit/core';
import { request } from '@octokit/request';
import type { GitHubConfig } from './config.ts';

/**
 * The two GitHub hosts, through octokit: the OAuth web flow lives on github.com, the REST API on
 * api.github.com. Both base URLs come from the config so tests can point them at a fake GitHub
 * on loopback (docs/architecture.md, "Production parts and local stand-ins"). `@octokit/core` rather than the `octokit` bundle: the Lambdas need
 * two requests, not its retry, throttling and pagination plugins.
 */
const userAgent = 'skillpress';

export function oauthRequest(config: GitHubConfig): typeof request {
  return request.defaults({ baseUrl: config.oauthBaseUrl, headers: { 'user-agent': userAgent } });
}

/** The REST API as the holder of `token`; without one, anonymously (public data only). */
export function githubApi(config: GitHubConfig, token: string | undefined): Octokit {
  return new Octokit({ ...(token ? { auth: token } : {}), baseUrl: config.apiBaseUrl, userAgent });
}

/**
 * A failure talking to GitHub, carrying only the HTTP status. Octokit's own errors hold the
 * request, whose body can contain the client secret, so they never travel further than here.
 */
export class GitHubError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(status ? `${message} (GitHub answered ${status})` : message);
    this.name = 'GitHubError';
  }
}

export function statusOfGitHubError(error: unknown): number {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : 0;
}
