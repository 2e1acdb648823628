import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError, usage } from './cli-error.ts';
import type { Io } from './io.ts';
import { configDir } from './paths.ts';

/**
 * `<XDG config>/skillpress/config.json`: the client's settings, none of them secret (API keys
 * live in credentials.json, 0600). `login` saves the registry it stored a key for, so the
 * commands after it talk to that registry without `--registry`.
 */

export interface Config {
  /** The registry to use when neither `--registry` nor SKILLPRESS_REGISTRY names one. */
  registry?: string;
}

export const configPath = (env: Io['env']) => join(configDir(env), 'config.json');

/**
 * The saved settings; none when the file does not exist. Synchronous: it is read once, while the
 * arguments are turned into a registry URL, before any command starts.
 */
export function readConfig(env: Io['env']): Config {
  let text: string;
  try {
    text = readFileSync(configPath(env), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliError('io_error', `cannot read ${configPath(env)}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const registry = (value as Config | null)?.registry;
  if (value === null || typeof value !== 'object' || Array.isArray(value) || (registry !== undefined && typeof registry !== 'string')) {
    throw new CliError('config_invalid', `${configPath(env)} is not {"registry": "<url>"}`, { hint: 'fix or delete it; skillpress login writes it again' });
  }
  return registry === undefined ? {} : { registry };
}

/** Merges `changes` into the saved settings, replacing the file in one rename. */
export async function saveConfig(env: Io['env'], changes: Config): Promise<string> {
  const path = configPath(env);
  const next = { ...readConfig(env), ...changes };
  await mkdir(configDir(env), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(next, null, 2)}\n`);
  await rename(temp, path);
  return path;
}

/** A registry URL as the client names it: an http(s) URL without query, fragment or trailing slash; `where` names its source in errors. */
export function normalRegistry(value: string, where: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usage(`${where} ${JSON.stringify(value)} is not a URL`, 'e.g. --registry https://skillpress.example');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usage(`${where} must be an http(s) URL, got ${url.protocol}`);
  url.search = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '');
}
