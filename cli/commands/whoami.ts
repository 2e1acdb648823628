import { CliError } from '../cli-error.ts';
import { apiKeyFor, envKeyApplies } from '../credentials.ts';
import type { CommandIo } from '../ui.ts';
import { RegistryClient } from '../registry-client.ts';

export interface WhoamiResult {
  registry: string;
  user: { id: string; login: string; name?: string };
}

/**
 * `skillpress whoami`: the account the API key (SKILLPRESS_API_KEY when it is this registry's,
 * else the one `login` stored for the registry) belongs to, as the registry's `GET /api/me` says. A refused key is explained:
 * it may be revoked, or the registry may answer `/api/me` for signed-in browsers only.
 */
export async function whoami(options: { registry: string }, io: CommandIo): Promise<WhoamiResult> {
  const apiKey = await apiKeyFor(io.env, options.registry);
  const from = envKeyApplies(io.env, options.registry, options.registry) ? 'SKILLPRESS_API_KEY' : 'the API key stored by skillpress login';
  let answer: unknown;
  try {
    answer = await new RegistryClient(options.registry, io).me(apiKey);
  } catch (error) {
    if (error instanceof CliError && error.code === 'unauthenticated') {
      throw new CliError('unauthenticated', `${options.registry} did not accept ${from} (${error.message})`, {
        status: 401,
        hint: 'the key may have been revoked: create one in the dashboard and run skillpress login. A registry older than this client answers /api/me for browser sessions only; publishing with the key may still work',
      });
    }
    throw error;
  }
  const user = (answer as { user?: WhoamiResult['user'] } | null)?.user;
  if (typeof user?.login !== 'string' || typeof user.id !== 'string')
    throw new CliError('bad_response', `GET ${options.registry}/api/me did not answer {user: {id, login}}`);
  const shown: WhoamiResult['user'] = { id: user.id, login: user.login, ...(typeof user.name === 'string' ? { name: user.name } : {}) };
  io.ui.line(`${io.ui.c.bold(shown.login)}${shown.name ? ` (${shown.name})` : ''} on ${options.registry}`);
  return { registry: options.registry, user: shown };
}
