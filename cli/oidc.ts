import { CliError, usage } from './cli-error.ts';
import { Http } from './http.ts';
import type { Io } from './io.ts';
import type { RegistryClient } from './registry-client.ts';

/**
 * `--oidc`: publishing from CI without a stored key (docs/api.md §7.14). The runner gives the job
 * an OIDC ID token for the registry's origin (GitHub Actions: `ACTIONS_ID_TOKEN_REQUEST_URL` and
 * `ACTIONS_ID_TOKEN_REQUEST_TOKEN`, present when the job has `permissions: id-token: write`); the
 * registry exchanges it for a 15-minute publish token for the skills that trust this workflow.
 * Neither token is printed or stored.
 */
export async function oidcPublishToken(io: Io, client: RegistryClient): Promise<{ token: string; skills: string[] }> {
  const requestUrl = io.env.ACTIONS_ID_TOKEN_REQUEST_URL;
  const requestToken = io.env.ACTIONS_ID_TOKEN_REQUEST_TOKEN;
  if (!requestUrl || !requestToken)
    throw usage(
      '--oidc needs the CI runner to issue an OIDC token, and it offers none (ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN are unset)',
      'in GitHub Actions, give the job "permissions: id-token: write"',
    );
  let runner: URL;
  try {
    runner = new URL(requestUrl);
  } catch {
    throw usage('ACTIONS_ID_TOKEN_REQUEST_URL is not a URL');
  }
  const audience = new URL(client.base).origin;
  const answer = await new Http(runner.origin, io)
    .json<{ value?: unknown }>(`${runner.pathname}${runner.search}`, { query: { audience }, apiKey: requestToken })
    .catch((error: unknown) => {
      if (error instanceof CliError && error.code !== 'network_error')
        throw new CliError('unauthenticated', `the CI runner refused to issue an OIDC token: ${error.message}`, {
          hint: 'give the job "permissions: id-token: write"',
        });
      throw error;
    });
  if (typeof answer.value !== 'string' || answer.value.length === 0) throw new CliError('bad_response', 'the CI runner answered without an OIDC token');
  return client.exchangeOidcToken(answer.value);
}
