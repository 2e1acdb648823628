import { usage } from '../cli-error.ts';
import { saveConfig } from '../config.ts';
import { removeApiKey, saveApiKey } from '../credentials.ts';
import type { Io } from '../io.ts';
import type { CommandIo } from '../ui.ts';

export interface LoginOptions {
  registry: string;
  /** The key itself; otherwise it is read from stdin (piped) or asked for without echo. */
  key?: string;
}

export interface LoginResult {
  registry: string;
  credentials: string;
  /** The config file that now names `registry` as the one to use. */
  config: string;
}

const KEY_PATTERN = /^sk_[A-Za-z0-9_-]{16,200}$/;

/**
 * `skillpress login`: stores an API key (create one in the dashboard) for the registry, readable
 * only by you, and makes that registry the one later commands use when neither `--registry` nor
 * SKILLPRESS_REGISTRY names another. Prefer piping the key in or typing it at the prompt over
 * `--key`, which shells keep in their history.
 */
export async function login(options: LoginOptions, io: CommandIo): Promise<LoginResult> {
  const key = (options.key ?? (io.stdin.isTTY ? await promptHidden(io, `API key for ${options.registry} (input hidden): `) : await readAll(io))).trim();
  if (!KEY_PATTERN.test(key))
    throw usage('that is not a Skillpress API key (they start with sk_)', 'create one in the dashboard under API keys; it is shown once');
  const credentials = await saveApiKey(io.env, options.registry, key, new Date());
  const config = await saveConfig(io.env, { registry: options.registry });
  io.ui.line(`Saved the API key for ${options.registry} in ${credentials} (readable only by you).`);
  io.ui.line(`Commands now use ${options.registry} unless --registry or SKILLPRESS_REGISTRY names another (${config}).`);
  return { registry: options.registry, credentials, config };
}

export interface LogoutResult {
  registry: string;
  removed: boolean;
}

/** `skillpress logout`: forgets the stored API key for the registry. */
export async function logout(options: { registry: string }, io: CommandIo): Promise<LogoutResult> {
  const removed = await removeApiKey(io.env, options.registry);
  io.ui.line(removed ? `Removed the API key for ${options.registry}.` : `No API key was stored for ${options.registry}.`);
  return { registry: options.registry, removed };
}

async function readAll(io: Io): Promise<string> {
  let text = '';
  for await (const chunk of io.stdin) text += chunk.toString();
  return text;
}

function promptHidden(io: Io, question: string): Promise<string> {
  const { stdin } = io;
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = () => {
      stdin.off?.('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause?.();
      io.stderr.write('\n');
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString()) {
        if (ch === '\r' || ch === '\n') {
          finish();
          return resolve(value);
        }
        if (ch === '\u0003' || ch === '\u0004') {
          finish();
          return reject(usage('cancelled'));
        }
        value = ch === '\u007f' || ch === '\b' ? value.slice(0, -1) : value + ch;
      }
    };
    io.stderr.write(question);
    stdin.setRawMode?.(true);
    stdin.on?.('data', onData);
    stdin.resume?.();
  });
}
