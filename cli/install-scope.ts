import { homedir } from 'node:os';
import { isAbsolute, join, relative, sep } from 'node:path';
import { AGENTS, agentFolder, GLOBAL_FOLDER_HOMES, globalAgentFolder, SHARED_SKILLS_FOLDER } from './agents.ts';
import { usage } from './cli-error.ts';
import type { Io } from './io.ts';
import { AGENT_ROOTS, LOCKFILE_NAME } from './lockfile.ts';
import { dataDir } from './paths.ts';
import { installPathProblem } from './registry-names.ts';

/**
 * Where an install lives: a project (its folder, the lockfile beside it, the agents' project
 * folders), or with `-g` the user (the home folder, the agents' user-level folders as the `skills`
 * CLI installs globally, and a lockfile of its own under the XDG data folder). Install paths are
 * relative to `root` in both, and held to the same rules.
 */
export interface InstallScope {
  global: boolean;
  /** The folder install paths are relative to: the project, or the home folder. */
  root: string;
  /** The lockfile's path. */
  lockfile: string;
  /** How messages name the lockfile. */
  lockfileShown: string;
  /** The folder an agent reads skills from, relative to `root`: undefined for an unknown id; null when it has none here. */
  agentFolder(id: string): string | null | undefined;
  /** Every agent folder a lockfile of this scope may name. */
  agentRoots: ReadonlySet<string>;
  /** An install path as messages show it: as it is in a project, under `~/` for the user. */
  shown(path: string): string;
}

export function projectScope(cwd: string): InstallScope {
  return {
    global: false,
    root: cwd,
    lockfile: join(cwd, LOCKFILE_NAME),
    lockfileShown: LOCKFILE_NAME,
    agentFolder,
    agentRoots: AGENT_ROOTS,
    shown: (path) => path,
  };
}

/** The user's scope (`-g`): the home folder, and the lockfile `$XDG_DATA_HOME/skillpress/skillpress-lock.json`. */
export function globalScope(env: Io['env']): InstallScope {
  const home = env.HOME || homedir();
  const lockfile = join(dataDir(env), LOCKFILE_NAME);
  const folderOf = (id: string): string | null | undefined => {
    const written = globalAgentFolder(id);
    if (!written) return written;
    const moved = /^\$([A-Z_]+)\/(.*)$/.exec(written);
    if (!moved) return written;
    const [, variable, rest] = moved as unknown as [string, string, string];
    const value = env[variable];
    if (!value || !isAbsolute(value)) return `${GLOBAL_FOLDER_HOMES[variable]}/${rest}`;
    const inHome = relative(home, join(value, rest)).split(sep).join('/');
    if (installPathProblem(inHome)) {
      throw usage(
        `-g installs under your home folder (${home}), and ${variable} puts ${id}'s skills at ${join(value, rest)}`,
        'install there with --dir from that folder',
      );
    }
    return inHome;
  };
  // The folders as their variables would put them by default are an agent's too: a lockfile
  // written before CLAUDE_CONFIG_DIR (say) was set still names a folder Claude Code read.
  const agentRoots = new Set<string>([SHARED_SKILLS_FOLDER]);
  for (const id of Object.keys(AGENTS)) {
    const written = globalAgentFolder(id);
    const moved = written ? /^\$([A-Z_]+)\/(.*)$/.exec(written) : null;
    if (moved) agentRoots.add(`${GLOBAL_FOLDER_HOMES[moved[1]!]}/${moved[2]}`);
    try {
      const folder = folderOf(id);
      if (folder) agentRoots.add(folder);
    } catch {
      // An agent whose folder is moved out of home cannot be named by the lockfile.
    }
  }
  return { global: true, root: home, lockfile, lockfileShown: lockfile, agentFolder: folderOf, agentRoots, shown: (path) => `~/${path}` };
}

/** The scope the `-g` flag asks for. */
export const scopeOf = (global: boolean, io: Pick<Io, 'cwd' | 'env'>): InstallScope => (global ? globalScope(io.env) : projectScope(io.cwd));
