import { randomBytes } from 'node:crypto';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { type FileBytes, type FileEntry, sha256Hex } from '../core/bundle.ts';
import { mapLimit } from '../core/map-limit.ts';
import { CliError } from './cli-error.ts';
import type { InstallScope } from './install-scope.ts';
import { installPathProblem } from './registry-names.ts';
import { LEGACY_LOCKFILE_NAME, LOCKFILE_NAME, type Lockfile, parseLockfile, serialiseLockfile, writtenBySkillpress } from './lockfile.ts';

/**
 * The project on disk: install folders and the lockfile. Every change is staged next to its
 * target and swapped in with rename(2), so a reader sees the old folder or the new one, never a
 * half-written one, and an install that fails at any point leaves the previous install as it was.
 */

export interface Staged {
  slug: string;
  target: string;
  stage: string;
}

const STAGE_PREFIX = '.skillpress-stage-';
const OLD_PREFIX = '.skillpress-old-';

const sibling = (target: string, prefix: string) => join(dirname(target), `${prefix}${basename(target)}-${randomBytes(4).toString('hex')}`);

/**
 * Temporary folders that exist right now, each with the install folder it must go back to if it
 * holds a previous install. An agent scanning `.claude/skills/` must not find a half-staged copy
 * after Ctrl-C, and an interrupted swap must not lose the previous install, so `cli/main.ts`
 * calls {@link settlePendingSync} when the process is interrupted.
 */
const pending = new Map<string, string | undefined>();

export function settlePendingSync(): void {
  for (const [path, restoreTo] of pending) {
    if (restoreTo !== undefined && !existsSync(restoreTo)) renameSync(path, restoreTo);
    else rmSync(path, { recursive: true, force: true });
  }
  pending.clear();
}

async function removeTemporary(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true }).catch(() => undefined);
  pending.delete(path);
}

/** Files of one skill written at the same time; the file system's thread pool does the rest. */
const WRITES_AT_ONCE = 8;

/**
 * Writes a skill's files into a fresh folder beside `target`; nothing at `target` changes yet.
 * Each folder is made once, then the files are written a few at a time. Nothing is synced to
 * disk: the staged folder only becomes the install by a rename, and a crash before that leaves
 * a temporary folder, never a half-written install.
 */
export async function stageFiles(slug: string, target: string, files: readonly FileBytes[]): Promise<Staged> {
  const stage = sibling(target, STAGE_PREFIX);
  try {
    await mkdir(dirname(target), { recursive: true });
    pending.set(stage, undefined);
    await mkdir(stage);
    const paths = files.map((file) => {
      const path = resolve(stage, ...file.filename.split('/'));
      // Names were checked against core/filename.ts already; this guards the join itself.
      if (!path.startsWith(stage + sep)) throw new CliError('unsafe_filename', `${file.filename} would be written outside ${target}`);
      return path;
    });
    for (const folder of new Set(paths.map(dirname))) if (folder !== stage) await mkdir(folder, { recursive: true });
    // Executable files get the bits a umask allows (0755 under the usual 022), as git checks them out.
    await mapLimit(files, WRITES_AT_ONCE, (file, i) => writeFile(paths[i]!, file.bytes, { flag: 'wx', mode: file.executable ? 0o777 : 0o666 }));
  } catch (error) {
    await removeTemporary(stage);
    throw ioError(error, `cannot write ${target}`);
  }
  return { slug, target, stage };
}

/**
 * Moves every staged folder into place. If one swap fails, the swaps already made are undone, so
 * either all targets change or none does.
 */
export async function commitStaged(staged: readonly Staged[]): Promise<void> {
  const done: { item: Staged; old?: string }[] = [];
  try {
    for (const item of staged) {
      const old = (await exists(item.target)) ? sibling(item.target, OLD_PREFIX) : undefined;
      if (old) {
        pending.set(old, item.target);
        await rename(item.target, old);
      }
      try {
        await rename(item.stage, item.target);
        pending.delete(item.stage);
      } catch (error) {
        if (old) await rename(old, item.target);
        throw error;
      }
      done.push({ item, old });
    }
  } catch (error) {
    for (const { item, old } of done.reverse()) {
      await rename(item.target, item.stage).catch(() => undefined);
      if (old)
        await rename(old, item.target).then(
          () => pending.delete(old),
          () => undefined,
        );
    }
    await discardStaged(staged);
    throw ioError(error, 'cannot move the new files into place; the previous install is unchanged');
  }
  await Promise.all(done.map(({ old }) => old && removeTemporary(old)));
}

export async function discardStaged(staged: readonly Staged[]): Promise<void> {
  await Promise.all(staged.map((s) => removeTemporary(s.stage)));
}

/** Removes an install folder; it disappears at once (renamed away first), then is deleted. */
export async function removeFolder(target: string): Promise<boolean> {
  if (!(await exists(target))) return false;
  const old = sibling(target, OLD_PREFIX);
  pending.set(old, undefined);
  await rename(target, old);
  await removeTemporary(old);
  return true;
}

/**
 * The first thing under `dir` that is not a file skillpress installed there, unchanged — a file
 * whose name is not among `files` or whose bytes do not have its SHA-256, a link, a device — as a
 * path relative to `dir` (`.` for `dir` itself when it is not a folder), or undefined when
 * everything is ours or `dir` does not exist. A folder is only ever replaced or removed when this
 * is undefined. Names alone would not do: a lockfile is written by whoever committed it, and one
 * that lists `index.ts` would make someone's own `src/x/index.ts` look like ours.
 */
export async function foreignEntry(dir: string, files: readonly FileEntry[]): Promise<string | undefined> {
  const stat = await lstat(dir).catch(() => undefined);
  if (!stat) return undefined;
  if (!stat.isDirectory()) return '.';
  const ours = new Map(files.map((f) => [f.filename, f]));
  const unchanged = async (path: string, file: FileEntry | undefined) => {
    if (!file) return false;
    const bytes = await readFile(path).catch(() => undefined);
    return bytes !== undefined && bytes.byteLength === file.size && sha256Hex(bytes) === file.sha256;
  };
  const walk = async (folder: string, prefix: string): Promise<string | undefined> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const name = prefix + entry.name;
      if (entry.isDirectory()) {
        const inner = await walk(join(folder, entry.name), `${name}/`);
        if (inner !== undefined) return inner;
      } else if (!entry.isFile() || !(await unchanged(join(folder, entry.name), ours.get(name)))) {
        return name;
      }
    }
    return undefined;
  };
  return walk(dir, '');
}

/**
 * Why the install folder `path` (relative to `cwd`) would, once links are followed, land outside
 * the project or inside `.git`, or null. A committed link (`.claude/skills` → `../.git/hooks`)
 * passes every check on the path's text; this one follows the nearest part that exists.
 */
export async function realFolderProblem(cwd: string, path: string): Promise<string | null> {
  const root = resolve(cwd);
  let existing = resolve(root, ...path.split('/'));
  while (!(await exists(existing))) {
    // Nothing of the root exists yet (a home folder before its first file): no link to follow.
    if (existing === root) return installPathProblem(path);
    existing = dirname(existing);
  }
  const [real, project] = await Promise.all([realpath(existing), realpath(cwd)]);
  const inside = relative(project, real);
  if (inside === '') return null;
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return 'leads outside the project through a link';
  return installPathProblem(inside.split(sep).join('/'));
}

/** Whether `dir` holds exactly `files` (same names, same bytes, nothing else, no links). */
export async function folderMatches(dir: string, files: readonly FileEntry[]): Promise<boolean> {
  const found = await listFiles(dir);
  if (!found || found.length !== files.length) return false;
  const names = new Set(found);
  for (const file of files) {
    if (!names.has(file.filename)) return false;
    const bytes = await readFile(join(dir, ...file.filename.split('/'))).catch(() => undefined);
    if (!bytes || bytes.byteLength !== file.size || sha256Hex(bytes) !== file.sha256) return false;
  }
  return true;
}

/** Relative names of the regular files under `dir`, or undefined if it is missing or holds a link. */
async function listFiles(dir: string, prefix = ''): Promise<string[] | undefined> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const names: string[] = [];
  for (const entry of entries) {
    const name = prefix + entry.name;
    if (entry.isDirectory()) {
      const inner = await listFiles(join(dir, entry.name), `${name}/`);
      if (!inner) return undefined;
      names.push(...inner);
    } else if (entry.isFile()) {
      names.push(name);
    } else {
      return undefined;
    }
  }
  return names;
}

/**
 * The scope's lockfile, or undefined when there is none yet. In a project, a `skills-lock.json`
 * that an older skillpress wrote (our shape) becomes `skillpress-lock.json` here, byte for byte,
 * the first time any command reads the lockfile; `notice` is told. One in the `skills` CLI's
 * shape is theirs: left exactly as it is.
 */
export async function readLockfile(scope: InstallScope, notice: (text: string) => void): Promise<Lockfile | undefined> {
  const text = await readIfPresent(scope.lockfile, scope.lockfileShown);
  if (text !== undefined) return parseLockfile(text, scope.lockfileShown, scope.agentRoots);
  if (scope.global) return undefined;
  const legacyPath = join(scope.root, LEGACY_LOCKFILE_NAME);
  const legacy = await readIfPresent(legacyPath, LEGACY_LOCKFILE_NAME);
  if (legacy === undefined || !writtenBySkillpress(legacy)) return undefined;
  const lock = parseLockfile(legacy, LEGACY_LOCKFILE_NAME);
  try {
    await rename(legacyPath, scope.lockfile);
  } catch (error) {
    throw ioError(error, `cannot rename ${LEGACY_LOCKFILE_NAME} to ${LOCKFILE_NAME}`);
  }
  notice(`Moved ${LEGACY_LOCKFILE_NAME} (written by an earlier skillpress) to ${LOCKFILE_NAME}; that name is the skills CLI's.`);
  return lock;
}

async function readIfPresent(path: string, name: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ioError(error, `cannot read ${name}`);
  }
}

export async function writeLockfile(scope: InstallScope, lock: Lockfile): Promise<void> {
  const path = scope.lockfile;
  const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  pending.set(temp, undefined);
  try {
    // The user-level lockfile's folder may not exist yet; a project's always does.
    if (scope.global) await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(temp, serialiseLockfile(lock));
    await rename(temp, path);
    pending.delete(temp);
  } catch (error) {
    await removeTemporary(temp);
    throw ioError(error, `cannot write ${scope.lockfileShown}`);
  }
}

export async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

function ioError(error: unknown, what: string): CliError {
  if (error instanceof CliError) return error;
  return new CliError('io_error', `${what}: ${(error as Error).message}`);
}
