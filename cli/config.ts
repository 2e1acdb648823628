import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError, usage } from './cli-error.ts';
import type { Io } from './io.ts';
import { configDir } from './paths.ts';

/**
 * `<XDG config>/skillpress/config.json`: the client's settings, none of them secret (API keys
 * live in credentials.json, 0600). `login` saves the registry it stored a key for, so the
 * commands after it talk to that registry without `--registry`. The signing keys the client
 * trusts for each registry are kept here too (cli/trust.ts).
 */

/** A signing key the client trusts for a registry: its id (the SHA-256 fingerprint of its public key), and the public key when known. */
export interface PinnedKey {
  keyid: string;
  publicKey?: string;
}

export interface Config {
  /** The registry to use when neither `--registry` nor SKILLPRESS_REGISTRY names one. */
  registry?: string;
  /** By registry URL: the signing keys trusted for it, recorded at first use and as rotations are followed. */
  keys?: Record<string, PinnedKey[]>;
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
  const { registry, keys } = (value ?? {}) as Config;
  if (value === null || typeof value !== 'object' || Array.isArray(value) || (registry !== undefined && typeof registry !== 'string') || !pinsShaped(keys)) {
    throw new CliError('config_invalid', `${configPath(env)} is not {"registry": "<url>", "keys": {"<url>": [{"keyid", "publicKey"}]}}`, {
      hint: 'fix or delete it; skillpress login writes it again',
    });
  }
  return { ...(registry === undefined ? {} : { registry }), ...(keys === undefined ? {} : { keys }) };
}

function pinsShaped(keys: unknown): boolean {
  if (keys === undefined) return true;
  if (keys === null || typeof keys !== 'object' || Array.isArray(keys)) return false;
  return Object.values(keys).every(
    (pins) => Array.isArray(pins) && pins.every((pin) => typeof pin?.keyid === 'string' && (pin.publicKey === undefined || typeof pin.publicKey === 'string')),
  );
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
