import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from './cli-error.ts';
import { normalRegistry } from './config.ts';
import type { Io } from './io.ts';
import { configDir } from './paths.ts';

/**
 * API keys per registry, in `<XDG config>/skillpress/credentials.json`, readable by the owner
 * only (0600, folder 0700), each sent only to the registry it was stored for. SKILLPRESS_API_KEY
 * takes precedence, for CI, but only for the one registry it is meant for (see
 * {@link envKeyApplies}): a registry that a committed lockfile names, or a mistyped
 * `--registry`, must never be handed a key the user gave for another.
 */

interface CredentialsFile {
  registries: Record<string, { apiKey: string; savedAt: string }>;
}

export const credentialsPath = (env: Io['env']) => join(configDir(env), 'credentials.json');

async function load(env: Io['env']): Promise<CredentialsFile> {
  try {
    const parsed = JSON.parse(await readFile(credentialsPath(env), 'utf8')) as CredentialsFile;
    return parsed && typeof parsed.registries === 'object' ? parsed : { registries: {} };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { registries: {} };
    throw new CliError('io_error', `cannot read ${credentialsPath(env)}: ${(error as Error).message}`);
  }
}

async function save(env: Io['env'], file: CredentialsFile): Promise<void> {
  const path = credentialsPath(env);
  await mkdir(configDir(env), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  // Created 0600 from the start, so the key is never readable by others, even for an instant.
  await writeFile(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, path);
}

export async function saveApiKey(env: Io['env'], registry: string, apiKey: string, now: Date): Promise<string> {
  const file = await load(env);
  file.registries[registry] = { apiKey, savedAt: now.toISOString() };
  await save(env, file);
  return credentialsPath(env);
}

/** Forgets the key for `registry`; true when there was one. */
export async function removeApiKey(env: Io['env'], registry: string): Promise<boolean> {
  const file = await load(env);
  if (!file.registries[registry]) return false;
  delete file.registries[registry];
  if (Object.keys(file.registries).length === 0) await rm(credentialsPath(env), { force: true });
  else await save(env, file);
  return true;
}

/**
 * Whether SKILLPRESS_API_KEY is meant for `registry`: it is the key of the registry the user
 * configured — SKILLPRESS_REGISTRY when set (the pair CI sets together), else the registry the
 * command runs against (`commandRegistry`: --registry, else the saved one, else the default).
 * Any other registry, one a lockfile names or a --registry that differs from SKILLPRESS_REGISTRY,
 * gets only the key stored for it.
 */
export function envKeyApplies(env: Io['env'], registry: string, commandRegistry: string): boolean {
  if (!env.SKILLPRESS_API_KEY) return false;
  const owner = env.SKILLPRESS_REGISTRY ? normalRegistry(env.SKILLPRESS_REGISTRY, 'SKILLPRESS_REGISTRY') : commandRegistry;
  return registry === owner;
}

/**
 * The API key for `registry`, or undefined when there is none: for commands that can do without
 * one. `commandRegistry` is the registry the command runs against; `registry` may be another (a
 * lockfile's).
 */
export async function storedApiKey(env: Io['env'], registry: string, commandRegistry: string): Promise<string | undefined> {
  if (envKeyApplies(env, registry, commandRegistry)) return env.SKILLPRESS_API_KEY;
  return (await load(env)).registries[registry]?.apiKey || undefined;
}

/** The API key for the command's own registry, or `unauthenticated`. */
export async function apiKeyFor(env: Io['env'], registry: string): Promise<string> {
  const key = await storedApiKey(env, registry, registry);
  if (key) return key;
  throw new CliError('unauthenticated', `no API key for ${registry}`, {
    hint: 'create one in the dashboard, then run skillpress login (or set SKILLPRESS_API_KEY)',
  });
}
