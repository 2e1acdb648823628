import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * Where the client keeps its state, per the XDG Base Directory spec: credentials under
 * `$XDG_CONFIG_HOME/skillpress` (default `~/.config/skillpress`), cached registry metadata under
 * `$XDG_CACHE_HOME/skillpress` (default `~/.cache/skillpress`), the user-level lockfile under
 * `$XDG_DATA_HOME/skillpress` (default `~/.local/share/skillpress`). Relative XDG values are ignored,
 * as the spec says.
 */
type Env = Record<string, string | undefined>;

function xdg(env: Env, variable: 'XDG_CONFIG_HOME' | 'XDG_CACHE_HOME' | 'XDG_DATA_HOME', fallback: string): string {
  const value = env[variable];
  const base = value && isAbsolute(value) ? value : join(env.HOME || homedir(), fallback);
  return join(base, 'skillpress');
}

export const configDir = (env: Env) => xdg(env, 'XDG_CONFIG_HOME', '.config');
export const cacheDir = (env: Env) => xdg(env, 'XDG_CACHE_HOME', '.cache');
/** The lockfile of `-g` installs lives here: `$XDG_DATA_HOME/skillpress` (default `~/.local/share/skillpress`). */
export const dataDir = (env: Env) => xdg(env, 'XDG_DATA_HOME', '.local/share');
