import { lstat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import semver from 'semver';
import type { FileEntry } from '../core/bundle.ts';
import { mapLimit } from '../core/map-limit.ts';
import type { VersionSummary } from '../core/registry-document.ts';
import type { ScanResult } from '../core/scan/finding.ts';
import { linkAgents, unlinkAgents } from './agent-links.ts';
import { SHARED_SKILLS_FOLDER } from './agents.ts';
import { CliError, usage } from './cli-error.ts';
import {
  commitStaged,
  discardStaged,
  folderMatches,
  foreignEntry,
  realFolderProblem,
  removeFolder,
  type Staged,
  stageFiles,
  writeLockfile,
} from './install-tree.ts';
import type { InstallScope } from './install-scope.ts';
import type { Io } from './io.ts';
import { LOCKFILE_NAME, type LockedSkill, type Lockfile, pruneOrphans } from './lockfile.ts';
import type { RegistryClient } from './registry-client.ts';
import { installFolder, installPathProblem, registryDependencies } from './registry-names.ts';
import { plural, type Ui } from './ui.ts';
import { LATEST, needsAllVersions } from '../core/version-choice.ts';
import { resolveVersion, satisfies } from './version-spec.ts';
import { type Verified, verifyDelivery } from './verify-delivery.ts';
import { checkSignature, summaryFacts } from './verify-signature.ts';
import type { SignedFacts } from '../core/version-signature.ts';
import type { Provenance } from '../core/provenance.ts';
import { observationOf, signedObservation, unclearedHint } from './effects-consent.ts';

/**
 * The install pipeline shared by `install`, `update` and lockfile reproduction:
 * resolve (registry metadata → exact versions, dependencies included) → download everything →
 * verify everything → stage every folder → swap them in → write the lockfile. Nothing in the
 * project changes until every download has passed its integrity check.
 */

export interface InstallContext {
  io: Io;
  ui: Ui;
  /** The registry for new resolutions. */
  client: RegistryClient;
  /** A download token for paid skills (`--token`). */
  token?: string;
  /** Without `--token`, ask each registry for a token of the user's own for paid skills, with the API key that registry may be sent. */
  ownTokens?: boolean;
  /** Replace folders that exist but were not installed by skillpress (`--force`). */
  force?: boolean;
}

/** One skill to bring to an exact version. */
export interface Target {
  slug: string;
  id: string;
  version: string;
  integrity: string;
  /** Per-file digests when known (the registry's current version, or the lockfile). */
  files?: FileEntry[];
  paid: boolean;
  /** A private skill, resolved through the API with the stored key: delivered with it too. */
  private?: true;
  registry: string;
  /** Undefined when the registry does not publish them (versions other than the current one). */
  dependencies?: Record<string, string>;
  spec: string;
  direct: boolean;
  /** Install folder relative to the project, `/`-separated. */
  path: string;
  /** Other agents' folders linked to `path` (cli/agent-links.ts). */
  links?: string[];
  /** Every published version with its changelog, when they were fetched. */
  available?: VersionSummary[];
  /** The registry's current version when this target was resolved. */
  currentVersion?: string;
  /** The author's deprecation message, when the registry says the skill is deprecated. */
  deprecated?: string;
  /** The version is yanked (with its reason, if any): installed only because it was pinned or named. */
  yanked?: { reason?: string };
  /** The registry's scan of this version, when it publishes one (cli/suspicious-check.ts). */
  scan?: ScanResult;
  /** The registry's signature of the version, as its document served it; looked up before download when absent (a lockfile's target). */
  signature?: unknown;
  /** The id of the key that signed it, once its signature was checked (or as the lockfile records it). */
  signedBy?: string;
  /** Where the version was built, when a CI workflow published it (docs/api.md §7.14). */
  provenance?: Provenance;
  /** What the registry's observation says of the version (cli/effects-consent.ts); absent: cleared. */
  behaviour?: string;
  /** The version's effects as the registry served them, unread until consent reads them; absent: never observed. */
  effects?: unknown;
  /** The effects the user accepted for this version (cli/effects-consent.ts), as the lockfile records them. */
  consented?: string[];
}

export interface Request {
  slug: string;
  spec: string;
  direct: boolean;
  /** Install folder relative to the project, `/`-separated. */
  path: string;
  /** Other agents' folders to link to it. */
  links?: string[];
}

export interface ResolveOptions {
  /** Fetch every version (for changelogs), not only what resolution needs. */
  allVersions?: boolean;
  /** `--allow-pending`: a range or `latest` may choose a version the registry is still observing. */
  allowPending?: boolean;
}

/**
 * Where named skills go when neither `--dir` nor `--agent` says: the folder that most agents
 * read (Codex, Cursor, Gemini CLI, GitHub Copilot, OpenCode, Amp, …) and that the `skills` CLI
 * installs into as well.
 */
export const DEFAULT_ROOT = SHARED_SKILLS_FOLDER;

/** Registry documents are small static files: a whole level of them is asked for at once. */
const LOOKUPS_AT_ONCE = 16;
/** Deliveries are up to megabytes each, decoded and hashed on arrival: a few at a time keep the CPU busy without piling them up in memory. */
const DOWNLOADS_AT_ONCE = 8;

/** The install root as a `/`-separated path inside the project; refuses folders outside it. */
export function projectRelativeRoot(cwd: string, dir: string): string {
  const rel = relative(cwd, isAbsolute(dir) ? dir : join(cwd, dir))
    .split(sep)
    .join('/');
  if (installPathProblem(rel)) {
    throw usage(`--dir ${dir} must be a folder inside this project (${cwd})`, `${LOCKFILE_NAME} records install folders relative to the project`);
  }
  return rel;
}

/**
 * The root `--dir` names, as the lockfile records it: a folder inside the project, never with
 * `-g` (whose folders are the agents' own).
 */
export function dirRoot(dir: string, scope: InstallScope): string {
  if (scope.global) throw usage('-g installs into the folders agents read for every project; --dir chooses a folder in this project');
  return projectRelativeRoot(scope.root, dir);
}

/** The install root of a skill folder path (`.agents/skills/x` → `.agents/skills`). */
export const parentOf = (path: string) => path.slice(0, path.lastIndexOf('/'));

/**
 * Resolves `requests` to exact versions, then their declared dependencies, breadth first with
 * the lookups of each level in parallel. A dependency that the lockfile already satisfies is
 * kept as it is, and a dependency lands beside the skill that needs it. Skills are installed
 * once per project, so a range that the chosen version does not satisfy is reported, not forced.
 */
export async function resolveTargets(ctx: InstallContext, requests: Request[], lock: Lockfile, options: ResolveOptions = {}): Promise<Target[]> {
  const chosen = new Map<string, Target>();
  let level: (Request & { wantedBy?: string })[] = requests;
  while (level.length > 0) {
    const todo = new Map<string, Request>();
    for (const item of level) {
      if (todo.has(item.slug)) continue;
      const existing = chosen.get(item.slug) ?? (item.wantedBy ? lock.skills.get(item.slug) : undefined);
      if (!existing) {
        todo.set(item.slug, item);
      } else if (!satisfies(existing.version, item.spec)) {
        ctx.ui.warn(
          `${item.wantedBy ?? 'you'} asked for ${item.slug}@${item.spec}, but ${item.slug}@${existing.version} stays installed (a skill is installed once per project)`,
        );
      }
    }
    // One request for the level, where it saves any: more than one skill, or a spec that would read a versions document too.
    const asked = [...todo.values()];
    if (asked.length > 1 || asked.some((item) => item.spec !== LATEST)) await ctx.client.resolveAll(asked);
    const resolved = await mapLimit(asked, LOOKUPS_AT_ONCE, (item) => resolveOne(ctx, item, lock, options));
    level = [];
    for (const target of resolved) {
      chosen.set(target.slug, target);
      // Every dependency slug was checked against the slug rule when its document was read.
      for (const [slug, range] of Object.entries(target.dependencies ?? {})) {
        // A dependency is linked into the same agents' folders as the skill that needs it.
        const links = lock.skills.get(slug)?.links ?? target.links?.map((link) => `${parentOf(link)}/${slug}`);
        level.push({
          slug,
          spec: range,
          direct: false,
          path: lock.skills.get(slug)?.path ?? `${parentOf(target.path)}/${slug}`,
          ...(links ? { links } : {}),
          wantedBy: `${target.slug}@${target.version}`,
        });
      }
    }
  }
  return [...chosen.values()];
}

async function resolveOne(ctx: InstallContext, request: Request, lock: Lockfile, options: ResolveOptions): Promise<Target> {
  const { client, ui } = ctx;
  const doc = await client.skill(request.slug);
  // Checked before anything uses them: these slugs become folder names on the next level.
  const dependencies = registryDependencies(doc.dependencies, `${request.slug}@${doc.currentVersion}`);
  const locked = lock.skills.get(request.slug);
  const choice = { allowPending: options.allowPending, installed: locked?.version };
  let available: VersionSummary[] | undefined;
  const all = async () => (available ??= (await client.versions(request.slug)).versions);
  if (options.allVersions || needsAllVersions(request.spec, doc.versions, doc.currentVersion, options.allowPending)) await all();

  const list = available ?? doc.versions;
  // A version the lockfile pins still installs once yanked, when nothing else answers the spec.
  const version = resolveVersion(request.spec, list, doc.currentVersion, choice) ?? (locked && satisfies(locked.version, request.spec) ? locked.version : null);
  if (!version) {
    const shown = list
      .slice(0, 8)
      .map((v) => v.version)
      .join(', ');
    throw new CliError('no_matching_version', `no version of ${request.slug} matches ${request.spec} (published: ${shown}${list.length > 8 ? ', …' : ''})`, {
      ...unclearedHint(list, options.allowPending === true),
    });
  }
  // The current version can be missing from the 5 newest when backports were published after it.
  const summary = list.find((v) => v.version === version) ?? (await all()).find((v) => v.version === version);
  if (!summary) throw new CliError('bad_response', `the registry lists ${request.slug}@${version} as current but publishes no integrity for it`);
  // `latest` takes the registry's word for the version, which goes into the lockfile and semver comparisons.
  if (semver.valid(version) !== version)
    throw new CliError('bad_response', `the registry names ${JSON.stringify(version)} as a version of ${request.slug}; that is not a semver version`);

  const current = version === doc.currentVersion;
  if (!current && locked?.version !== version && Object.keys(dependencies).length > 0) {
    ui.warn(`the registry publishes dependencies only for ${request.slug}'s current version (${doc.currentVersion}); those of ${version} are not installed`);
  }
  return {
    slug: request.slug,
    id: doc.id,
    version,
    integrity: summary.integrity,
    // Per-file digests and dependencies are published for the current version only; for an
    // older one the lockfile may still know them from when it was installed.
    ...(current
      ? { files: doc.files, dependencies }
      : locked?.version === version && locked.integrity === summary.integrity
        ? { files: locked.files, dependencies: locked.dependencies }
        : {}),
    paid: doc.paid,
    ...(doc.visibility === 'private' ? { private: true as const } : {}),
    registry: client.base,
    spec: request.spec,
    direct: request.direct || locked?.direct === true,
    path: request.path,
    ...(request.links ? { links: request.links } : {}),
    currentVersion: doc.currentVersion,
    ...(available ? { available } : {}),
    ...lifecycleOf(doc.deprecated, summary),
    ...(summary.scan ? { scan: summary.scan } : {}),
    ...(summary.signature ? { signature: summary.signature } : {}),
    ...(summary.provenance ? { provenance: summary.provenance } : {}),
    ...observationOf(summary),
  };
}

/** What the registry lists for a target's version, from its document or, for an older version, its versions list. */
async function servedSummary(client: RegistryClient, t: Pick<Target, 'slug' | 'version'>): Promise<VersionSummary | undefined> {
  const doc = await client.skill(t.slug);
  return doc.versions.find((v) => v.version === t.version) ?? (await client.versions(t.slug)).versions.find((v) => v.version === t.version);
}

/** What a target's signature must cover: the facts the client showed and acted on. */
const targetFacts = (t: Target): SignedFacts => ({
  slug: t.slug,
  version: t.version,
  integrity: t.integrity,
  ...(t.provenance ? { provenance: t.provenance } : {}),
  ...(t.scan ? { scan: t.scan } : {}),
  yanked: t.yanked !== undefined,
  ...signedObservation(t),
});

/**
 * Checks the signature of a target about to be downloaded and gives the key that made it. A
 * target whose summary was not read (a lockfile's, when the registry could not be asked for its
 * lifecycle) is checked against the summary the registry serves now, facts and signature together.
 */
async function signedTarget(client: RegistryClient, t: Target): Promise<string> {
  if (t.signature !== undefined) return checkSignature(client, targetFacts(t), t.signature);
  const summary = await servedSummary(client, t);
  // The lockfile's integrity with the registry's word for the rest: a registry now serving other bytes fails here.
  return checkSignature(client, { ...(summary ? summaryFacts(t.slug, summary) : targetFacts(t)), integrity: t.integrity }, summary?.signature);
}

/**
 * The keys the lockfile records as having signed its skills, pinned for the registries that
 * serve them (cli/trust.ts): a mirror that re-signs them with a key of its own is refused.
 */
export function pinLockfileKeys(lock: Lockfile, clientFor: (registry: string) => RegistryClient): void {
  for (const entry of lock.skills.values()) if (entry.signedBy) clientFor(entry.registry).pin([{ keyid: entry.signedBy }]);
}

/**
 * `--require-provenance`: every version about to be installed, dependencies included, must have
 * been published from CI by a trusted publisher; otherwise nothing is downloaded (`no_provenance`, exit 1).
 */
export function requireProvenance(targets: readonly Target[]): void {
  const without = targets.filter((t) => !t.provenance);
  if (without.length === 0) return;
  throw new CliError(
    'no_provenance',
    `${without.map((t) => `${t.slug}@${t.version}`).join(', ')} ${without.length === 1 ? 'has' : 'have'} no provenance: not published from CI by a trusted publisher`,
    {
      details: { versions: without.map((t) => `${t.slug}@${t.version}`) },
      hint: 'install without --require-provenance to accept it, or ask its author to publish from CI (docs: trusted publishing)',
    },
  );
}

/** What a target says about the skill's deprecation and the version's yank. */
function lifecycleOf(deprecated: string | undefined, summary: VersionSummary): Pick<Target, 'deprecated' | 'yanked'> {
  return {
    ...(typeof deprecated === 'string' ? { deprecated } : {}),
    ...(summary.yanked ? { yanked: summary.yankReason === undefined ? {} : { reason: summary.yankReason } } : {}),
  };
}

/**
 * Looks up, for targets taken from the lockfile, whether their skill is deprecated and their
 * version yanked: the registry document, and the versions list only for a version too old to be
 * among its five. A registry that cannot answer just leaves a target without warnings: the
 * install itself goes on, as the lockfile needs nothing more.
 */
export async function lookUpLifecycle(targets: Target[], clientFor: (registry: string) => RegistryClient): Promise<Target[]> {
  return mapLimit(targets, 6, async (t) => {
    try {
      const client = clientFor(t.registry);
      const doc = await client.skill(t.slug);
      const summary = doc.versions.find((v) => v.version === t.version) ?? (await client.versions(t.slug)).versions.find((v) => v.version === t.version);
      // The signature comes with the facts it covers, so that what is shown and acted on is checked.
      if (!summary) return t;
      return {
        ...t,
        ...lifecycleOf(doc.deprecated, summary),
        ...(summary.provenance ? { provenance: summary.provenance } : {}),
        ...(summary.scan ? { scan: summary.scan } : {}),
        ...(summary.signature ? { signature: summary.signature } : {}),
        ...observationOf(summary),
      };
    } catch {
      return t;
    }
  });
}

/** Warns about each deprecated skill and each yanked version about to be installed or kept. */
export function warnLifecycle(ui: Ui, targets: readonly Target[]): void {
  for (const t of targets) {
    if (t.deprecated !== undefined) ui.warn(`${t.slug} is deprecated: ${t.deprecated}`);
    if (t.yanked) {
      ui.warn(
        `${t.slug}@${t.version} is yanked${t.yanked.reason ? ` (${t.yanked.reason})` : ''}; installed because ${t.spec === t.version ? 'it was asked for by version' : `${LOCKFILE_NAME} pins it`}`,
      );
    }
  }
}

/** A lockfile entry turned back into a target, for `install` with no arguments. */
export function targetFromLock(slug: string, entry: LockedSkill): Target {
  return { slug, ...entry };
}

export interface InstalledReport {
  slug: string;
  version: string;
  previous: string | null;
  path: string;
  integrity: string;
  files: number;
  bytes: number;
  direct: boolean;
}

export interface InstallOutcome {
  installed: InstalledReport[];
  unchanged: { slug: string; version: string; path: string }[];
  removed: string[];
  lockfile: string;
}

/**
 * Brings the project to `targets`: skips what is already installed intact, downloads and verifies
 * the rest, then swaps folders in and writes the lockfile.
 */
export async function applyTargets(
  ctx: InstallContext,
  targets: Target[],
  lock: Lockfile,
  scope: InstallScope,
  clientFor: (registry: string) => RegistryClient,
): Promise<InstallOutcome> {
  const { ui } = ctx;
  const cwd = scope.root;
  // Before any download or write: every folder this install would touch lies inside the project,
  // by its text and once links are followed.
  for (const t of targets) installFolder(cwd, t.path);
  for (const t of targets) {
    const problem = await realFolderProblem(cwd, t.path);
    if (problem) throw new CliError('unsafe_path', `refusing to install into ${t.path}: it ${problem}`);
  }
  const intact = await mapLimit(targets, 8, async (t) => {
    const locked = lock.skills.get(t.slug);
    return (
      locked !== undefined &&
      locked.version === t.version &&
      locked.integrity === t.integrity &&
      locked.path === t.path &&
      (await folderMatches(join(cwd, t.path), locked.files))
    );
  });
  const toFetch = targets.filter((_, i) => !intact[i]);
  for (const t of targets) {
    // Agents' folders to link: each must lie in the project, and hold nothing but our link or copy.
    for (const link of t.links ?? []) {
      installFolder(cwd, link);
      const problem = await realFolderProblem(cwd, link);
      if (problem) throw new CliError('unsafe_path', `refusing to link ${link}: it ${problem}`);
      const locked = lock.skills.get(t.slug);
      const ours = locked?.path === link || locked?.links?.includes(link) ? locked.files : [];
      const stat = await lstat(join(cwd, link)).catch(() => undefined);
      if (stat && !stat.isSymbolicLink() && !ctx.force && (await foreignEntry(join(cwd, link), ours)) !== undefined) {
        throw new CliError('folder_exists', `${link} already exists and holds files skillpress did not install or that changed since`, {
          hint: 'move it away, or pass --force to replace it',
        });
      }
    }
  }
  for (const t of toFetch) {
    // A folder holding anything skillpress did not put there may be someone's own work: never replace it silently.
    if (ctx.force) continue;
    const locked = lock.skills.get(t.slug);
    const foreign = await foreignEntry(join(cwd, t.path), locked?.path === t.path ? locked.files : []);
    if (foreign !== undefined) {
      throw new CliError(
        'folder_exists',
        `${t.path} already exists and holds ${foreign === '.' ? 'something else' : foreign}, which skillpress did not install there or which changed since`,
        {
          hint: 'move it away, or pass --force to replace it',
        },
      );
    }
  }

  let done = 0;
  const report = () => ui.progress(`Downloading and verifying ${done}/${plural(toFetch.length, 'skill')}…`);
  if (toFetch.length > 0) report();
  // Each skill is written beside its folder as soon as it has arrived and passed verification,
  // while the others are still downloading; no install folder changes until all of them have.
  const staged: (Staged & Pick<Verified, 'entries'>)[] = [];
  let failure: { error: unknown } | undefined;
  await mapLimit(toFetch, DOWNLOADS_AT_ONCE, async (t, i) => {
    if (failure) return;
    try {
      const client = clientFor(t.registry);
      t.signedBy = await signedTarget(client, t);
      const delivery = await deliver(ctx, client, t);
      const verified = verifyDelivery(delivery.value, { slug: t.slug, version: t.version, integrity: t.integrity, files: t.files }, delivery.bytes);
      if (failure) return;
      // Only the digests stay: the bytes are on disk, and megabytes of them need not wait for the rest.
      staged[i] = { ...(await stageFiles(t.slug, join(cwd, t.path), verified.files)), entries: verified.entries };
      done++;
      report();
    } catch (error) {
      failure ??= { error };
    }
  });
  ui.endProgress();
  if (failure) {
    await discardStaged(staged.filter(Boolean));
    throw failure.error;
  }
  await commitStaged(staged);
  // Checked above: whatever is at a link path now is our old install, our link, or was forced.
  for (const t of targets) if (t.links?.length) await linkAgents(cwd, { path: t.path, files: [], links: t.links }, ui, true);

  const skills = new Map(lock.skills);
  const moved: LockedSkill[] = [];
  const installed: InstalledReport[] = [];
  for (const [i, t] of toFetch.entries()) {
    const { entries } = staged[i]!;
    const previous = skills.get(t.slug);
    // A skill moved to the shared folder leaves a link where it was, not a folder to remove.
    if (previous && previous.path !== t.path && !t.links?.includes(previous.path)) moved.push(previous);
    skills.set(t.slug, lockEntry(t, entries));
    installed.push({
      slug: t.slug,
      version: t.version,
      previous: previous?.version ?? null,
      path: t.path,
      integrity: t.integrity,
      files: entries.length,
      bytes: entries.reduce((n, f) => n + f.size, 0),
      direct: t.direct,
    });
  }
  const unchanged = targets
    .filter((_, i) => intact[i])
    .map((t) => {
      const locked = lock.skills.get(t.slug)!;
      skills.set(t.slug, lockEntry({ ...t, signedBy: t.signedBy ?? locked.signedBy, consented: t.consented ?? locked.consented }, locked.files));
      return { slug: t.slug, version: t.version, path: t.path };
    });
  const pruned = pruneOrphans({ ...lock, skills });
  for (const slug of pruned.removed) moved.push(skills.get(slug)!);
  await writeLockfile(scope, pruned.lock);
  for (const entry of moved) await removeInstalled(cwd, entry, ui);
  return { installed, unchanged, removed: pruned.removed, lockfile: scope.lockfileShown };
}

/**
 * Removes a skill's install folder, unless it holds something skillpress did not install there
 * (or that changed since): then the folder stays, with a warning naming what was found.
 */
export async function removeInstalled(cwd: string, entry: Pick<LockedSkill, 'path' | 'files' | 'links'>, ui: Ui): Promise<void> {
  try {
    const foreign = await foreignEntry(join(cwd, entry.path), entry.files);
    if (foreign !== undefined) {
      ui.warn(
        `left ${entry.path} in place: it holds ${foreign === '.' ? 'something other than a folder' : foreign}, which skillpress did not install there or which changed since`,
      );
      return;
    }
    await removeFolder(join(cwd, entry.path));
    await unlinkAgents(cwd, entry, ui);
  } catch (error) {
    ui.warn(`could not remove ${entry.path}: ${(error as Error).message}`);
  }
}

/**
 * A token of the user's own for a paid skill they bought or were granted, asked for with their
 * API key; undefined without a key. It lives in memory for this one delivery: never in the
 * lockfile, the cache or a message.
 */
async function ownToken(ctx: InstallContext, client: RegistryClient, t: Target): Promise<string | undefined> {
  const key = ctx.ownTokens ? await client.apiKey() : undefined;
  if (!key) return undefined;
  try {
    return await client.mintDownloadToken(key, t.id);
  } catch (error) {
    if (error instanceof CliError && error.code === 'unauthenticated') {
      throw new CliError(error.code, `${t.slug}: your API key was refused: ${error.message}`, {
        ...error.options,
        hint: 'create a new key in the dashboard and run skillpress login (or set SKILLPRESS_API_KEY)',
      });
    }
    throw error;
  }
}

function lockEntry(t: Target, files: FileEntry[]): LockedSkill {
  return {
    version: t.version,
    integrity: t.integrity,
    files,
    id: t.id,
    registry: t.registry,
    path: t.path,
    spec: t.spec,
    direct: t.direct,
    paid: t.paid,
    ...(t.private ? { private: true as const } : {}),
    ...(t.dependencies ? { dependencies: t.dependencies } : {}),
    ...(t.links?.length ? { links: t.links } : {}),
    ...(t.signedBy ? { signedBy: t.signedBy } : {}),
    ...(t.consented ? { consented: t.consented } : {}),
  };
}

/**
 * Downloads one version: a free public one from its bundle on the CDN (counted there), anything
 * else, or a version without a bundle yet, from the delivery endpoint, turning paid-access
 * refusals into advice the user can follow.
 */
async function deliver(ctx: InstallContext, client: RegistryClient, t: Target): Promise<{ value: unknown; bytes?: Uint8Array }> {
  if (!t.paid && !t.private) {
    const bundle = await client.bundle(t.slug, t.version);
    if (bundle) return bundle;
  }
  try {
    const token = t.paid ? (ctx.token ?? (await ownToken(ctx, client, t))) : undefined;
    return await client.deliver(t.id, t.version, token, t.private === true);
  } catch (error) {
    if (error instanceof CliError && error.code === 'payment_required') {
      throw new CliError(error.code, `${t.slug} is a paid skill: ${error.message}`, {
        ...error.options,
        hint: `buy it at ${client.base}/skills/${t.slug}/ and run this again with your API key (skillpress login), or pass --token <token> from its author`,
      });
    }
    if (error instanceof CliError && error.code === 'unauthenticated' && ctx.token) {
      throw new CliError(error.code, `${t.slug}: the download token was refused: ${error.message}`, {
        ...error.options,
        hint: 'tokens expire, can be revoked or used up, and work for one skill only',
      });
    }
    throw error;
  }
}
