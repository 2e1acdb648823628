import { readableCanonicalJson } from '../core/canonical-json.ts';
import { byFilename, type FileEntry } from '../core/bundle.ts';
import { filenameProblem } from '../core/filename.ts';
import { isValidSlug } from '../core/slug.ts';
import { AGENTS } from './agents.ts';
import { CliError } from './cli-error.ts';
import { installPathProblem } from './registry-names.ts';

/**
 * `skillpress-lock.json`: what a project has installed, pinned so `skillpress install` with no
 * arguments puts back exactly the same bytes. Each skill records the version, the bundle
 * integrity the registry published for it, every file's SHA-256, where it came from and where it
 * lives. The text is deterministic (sorted keys, two-space indent, final newline), so the same
 * install gives the same bytes and a diff shows only real changes. Pure: no file system access.
 */

export const LOCKFILE_NAME = 'skillpress-lock.json';
export const LOCKFILE_VERSION = 1;

/**
 * Where skillpress kept its lockfile before, and where the `skills` CLI keeps its own, in
 * another shape (`{"version": 1, "skills": {name: {source, …}}}`). Ours there is moved to
 * {@link LOCKFILE_NAME}; theirs is never read further nor written.
 */
export const LEGACY_LOCKFILE_NAME = 'skills-lock.json';

/**
 * Whether a `skills-lock.json` holds our shape (`lockfileVersion`) rather than the `skills`
 * CLI's (`version`). Only the top-level keys are looked at: what theirs says is none of ours.
 */
export function writtenBySkillpress(text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  return isObject(value) && Object.hasOwn(value, 'lockfileVersion') && !Object.hasOwn(value, 'version');
}

export interface LockedSkill {
  version: string;
  /** `sha256-<base64>` of the canonical bundle, as in the registry's `versions[].integrity`. */
  integrity: string;
  files: FileEntry[];
  /** The registry's skill id (the delivery path needs it). */
  id: string;
  /** Base URL of the registry it was resolved from. */
  registry: string;
  /** Folder of the installed files, relative to the project, `/`-separated. */
  path: string;
  /** What was asked for: `latest`, an exact version or a range; `update` stays within it. */
  spec: string;
  /** Installed because the user named it (true) or as another skill's dependency (false). */
  direct: boolean;
  paid: boolean;
  /** A private skill: read and delivered with a member's API key, never from static files. */
  private?: true;
  /** Declared dependencies of this version, when the registry published them. */
  dependencies?: Record<string, string>;
  /** Other agents' folders that link to `path` (cli/agent-links.ts), each `<agent root>/<slug>`. */
  links?: string[];
  /**
   * The id of the registry key whose signature of this version the install checked: `SHA256:`
   * and the fingerprint of its public key. Pinned for the registry on the next install and
   * verify (cli/trust.ts).
   */
  signedBy?: string;
  /**
   * The effects accepted for this version (cli/effects-consent.ts), as sorted keys: what
   * `update` compares a new version's effects with. Absent when they were not known.
   */
  consented?: string[];
}

export interface Lockfile {
  lockfileVersion: typeof LOCKFILE_VERSION;
  /** By slug. A Map, not an object: `constructor` is a valid slug and must not find Object's. */
  skills: Map<string, LockedSkill>;
  /** Install roots chosen with `--dir`, besides the agents' own folders (sorted, no repeats). */
  dirs: string[];
}

/**
 * The folders a locked skill may live in (as `<root>/<slug>`): every agent's own skills folder,
 * and the roots the user chose with `--dir`. A lockfile is committed and read by whoever clones
 * the project, so its paths are not trusted further than that: an entry pointing at `src` or
 * `.git/hooks` is refused before anything is touched.
 */
export const AGENT_ROOTS: ReadonlySet<string> = new Set(Object.values(AGENTS).map(([, folder]) => folder));

export function emptyLockfile(): Lockfile {
  return { lockfileVersion: LOCKFILE_VERSION, skills: new Map(), dirs: [] };
}

/** The lockfile with `dir` recorded as an install root, unless an agent's folder already is one. */
export function withDir(lock: Lockfile, dir: string): Lockfile {
  if (AGENT_ROOTS.has(dir) || lock.dirs.includes(dir)) return lock;
  return { ...lock, dirs: [...lock.dirs, dir].sort() };
}

export function serialiseLockfile(lock: Lockfile): string {
  const skills = Object.fromEntries([...lock.skills].map(([slug, entry]) => [slug, { ...entry, files: [...entry.files].sort(byFilename) }]));
  // Roots whose skills are all gone are forgotten; `dirs` is left out while there are none.
  const dirs = lock.dirs.filter((dir) => [...lock.skills.values()].some((entry) => entry.path.startsWith(`${dir}/`)));
  return readableCanonicalJson({ lockfileVersion: lock.lockfileVersion, skills, ...(dirs.length > 0 ? { dirs } : {}) });
}

/**
 * Reads a lockfile, refusing anything that could make an install write outside its folder.
 * `name` is the file it came from, for messages; `agentRoots` the agents' folders it may name
 * (the user-level ones for the lockfile of `-g` installs).
 */
export function parseLockfile(text: string, name = LOCKFILE_NAME, agentRoots: ReadonlySet<string> = AGENT_ROOTS): Lockfile {
  const invalid = (reason: string) => invalidLockfile(name, reason);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid(`it is not JSON (${(error as Error).message})`);
  }
  if (!isObject(value) || value.lockfileVersion !== LOCKFILE_VERSION || !isObject(value.skills)) {
    throw invalid(`expected {"lockfileVersion": ${LOCKFILE_VERSION}, "skills": {...}}`);
  }
  const dirs = checkDirs(value.dirs, invalid);
  const roots = new Set([...agentRoots, ...dirs]);
  const skills = new Map<string, LockedSkill>();
  for (const [slug, entry] of Object.entries(value.skills)) skills.set(slug, checkEntry(slug, entry, roots, invalid));
  return { lockfileVersion: LOCKFILE_VERSION, skills, dirs };
}

function checkDirs(value: unknown, invalid: Invalid): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((dir) => typeof dir === 'string')) throw invalid('dirs must be a list of folders');
  for (const dir of value) {
    const problem = installPathProblem(dir);
    if (problem) throw invalid(`dirs: ${JSON.stringify(dir.slice(0, 80))} must be a relative folder inside the project (it ${problem})`);
  }
  return [...new Set(value as string[])].sort();
}

type Invalid = (reason: string) => CliError;

function checkEntry(slug: string, entry: unknown, roots: ReadonlySet<string>, invalid: Invalid): LockedSkill {
  const where = `skills["${slug}"]`;
  if (!isValidSlug(slug)) throw invalid(`${where}: not a skill slug`);
  if (!isObject(entry)) throw invalid(`${where} must be an object`);
  for (const field of ['version', 'integrity', 'id', 'registry', 'path', 'spec'] as const) {
    if (typeof entry[field] !== 'string' || entry[field] === '') throw invalid(`${where}.${field} must be a non-empty string`);
  }
  if (!/^sha256-[A-Za-z0-9+/]{43}=$/.test(entry.integrity as string)) throw invalid(`${where}.integrity must be sha256-<base64>`);
  const path = entry.path as string;
  const problem = installPathProblem(path);
  if (problem) throw invalid(`${where}.path must be a relative folder inside the project (it ${problem})`);
  const root = path.slice(0, path.lastIndexOf('/'));
  if (path !== `${root}/${slug}` || !roots.has(root)) {
    throw invalid(`${where}.path must be <install root>/${slug}, where the root is an agent's skills folder or a --dir folder listed in "dirs"`);
  }
  if (!Array.isArray(entry.files)) throw invalid(`${where}.files must be a list`);
  const files = entry.files.map((file, index): FileEntry => {
    if (!isObject(file) || typeof file.filename !== 'string' || typeof file.sha256 !== 'string' || typeof file.size !== 'number') {
      throw invalid(`${where}.files[${index}] must be {filename, sha256, size}`);
    }
    const problem = filenameProblem(file.filename);
    if (problem) throw invalid(`${where}.files[${index}].filename ${problem}`);
    if (!/^[0-9a-f]{64}$/.test(file.sha256)) throw invalid(`${where}.files[${index}].sha256 must be 64 hex digits`);
    return { filename: file.filename, sha256: file.sha256, size: file.size };
  });
  const dependencies = entry.dependencies === undefined ? undefined : checkDependencies(where, entry.dependencies, invalid);
  if (entry.signedBy !== undefined && (typeof entry.signedBy !== 'string' || !/^SHA256:[A-Za-z0-9+/]{43}$/.test(entry.signedBy))) {
    throw invalid(`${where}.signedBy must be a key id, SHA256:<base64 fingerprint>`);
  }
  const links = entry.links === undefined ? undefined : checkLinks(where, slug, entry.links, path, roots, invalid);
  const consented = entry.consented === undefined ? undefined : checkConsented(where, entry.consented, invalid);
  return {
    version: entry.version as string,
    integrity: entry.integrity as string,
    files,
    id: entry.id as string,
    registry: entry.registry as string,
    path,
    spec: entry.spec as string,
    direct: entry.direct !== false,
    paid: entry.paid === true,
    ...(entry.private === true ? { private: true as const } : {}),
    ...(dependencies === undefined ? {} : { dependencies }),
    ...(links === undefined || links.length === 0 ? {} : { links }),
    ...(entry.signedBy === undefined ? {} : { signedBy: entry.signedBy as string }),
    ...(consented === undefined ? {} : { consented }),
  };
}

/** The most effects a lockfile may record as accepted for one version: far more than any version has. */
const MAX_CONSENTED = 1000;

/** Accepted effects are a list of short strings; only what is in it is compared, never run or followed. */
function checkConsented(where: string, value: unknown, invalid: Invalid): string[] {
  if (!Array.isArray(value) || value.length > MAX_CONSENTED || !value.every((key) => typeof key === 'string' && key.length <= 2000)) {
    throw invalid(`${where}.consented must be a list of at most ${MAX_CONSENTED} effect keys`);
  }
  return [...new Set(value as string[])].sort();
}

/** Links obey the install path's rules: `<agent root>/<slug>`, never the install folder itself. */
function checkLinks(where: string, slug: string, value: unknown, path: string, roots: ReadonlySet<string>, invalid: Invalid): string[] {
  if (!Array.isArray(value) || !value.every((link) => typeof link === 'string')) throw invalid(`${where}.links must be a list of folders`);
  for (const link of value as string[]) {
    const problem = installPathProblem(link);
    const root = link.slice(0, link.lastIndexOf('/'));
    if (problem || link !== `${root}/${slug}` || !roots.has(root) || link === path) {
      throw invalid(`${where}.links: ${JSON.stringify(link.slice(0, 80))} must be <agent skills folder>/${slug}${problem ? ` (it ${problem})` : ''}`);
    }
  }
  return [...new Set(value as string[])].sort();
}

/** Dependencies as a map without a prototype, every key a slug (the registry's own rule). */
function checkDependencies(where: string, value: unknown, invalid: Invalid): Record<string, string> {
  if (!isObject(value)) throw invalid(`${where}.dependencies must map slugs to ranges`);
  const dependencies: Record<string, string> = Object.create(null);
  for (const [slug, range] of Object.entries(value)) {
    if (!isValidSlug(slug)) throw invalid(`${where}.dependencies: ${JSON.stringify(slug)} is not a skill slug`);
    if (typeof range !== 'string') throw invalid(`${where}.dependencies must map slugs to ranges`);
    dependencies[slug] = range;
  }
  return dependencies;
}

/**
 * Refuses a lockfile that would have a command write or remove a folder in a root the user has
 * not chosen on this run. `dirs` says where skills were installed with `--dir`, but whoever wrote
 * the lockfile wrote that list too: a cloned project's `"dirs": ["src"]` must not make an install
 * replace `src/<slug>`. So only the agents' folders (`agentRoots`) are trusted, and a `dirs` root
 * only when `confirmed` (the `--dir` of this run) names it. Reading commands (list, verify) need
 * no such word; install, update and uninstall call this before anything else.
 */
export function requireTrustedRoots(lock: Lockfile, agentRoots: ReadonlySet<string>, confirmed: readonly string[], name = LOCKFILE_NAME): void {
  for (const [slug, entry] of lock.skills) {
    for (const path of [entry.path, ...(entry.links ?? [])]) {
      const root = path.slice(0, path.lastIndexOf('/'));
      if (agentRoots.has(root) || confirmed.includes(root)) continue;
      throw new CliError(
        'untrusted_dir',
        `${name} keeps ${slug} in ${root}, which is not an agent's skills folder; a lockfile alone is not trusted with other folders`,
        {
          hint: `if you chose ${root} for skills, say so on this run: --dir ${root}`,
        },
      );
    }
  }
}

/**
 * Drops skills that were installed only as dependencies and that no remaining skill needs any
 * more (after an uninstall or an update that changed dependencies). Returns the slugs dropped.
 */
export function pruneOrphans(lock: Lockfile): { lock: Lockfile; removed: string[] } {
  const needed = new Set<string>();
  const visit = (slug: string) => {
    const entry = lock.skills.get(slug);
    if (needed.has(slug) || !entry) return;
    needed.add(slug);
    for (const dep of Object.keys(entry.dependencies ?? {})) visit(dep);
  };
  for (const [slug, entry] of lock.skills) if (entry.direct) visit(slug);
  const removed = [...lock.skills.keys()].filter((slug) => !needed.has(slug)).sort();
  const skills = new Map([...lock.skills].filter(([slug]) => needed.has(slug)));
  return { lock: { ...lock, skills }, removed };
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

const invalidLockfile = (name: string, reason: string) =>
  new CliError('lockfile_invalid', `${name} is not a valid lockfile: ${reason}`, {
    hint: `fix or delete ${name}, then run skillpress install <slug>`,
  });
