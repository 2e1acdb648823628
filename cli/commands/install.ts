import { AGENTS, SHARED_SKILLS_FOLDER } from '../agents.ts';
import { usage } from '../cli-error.ts';
import { didYouMean } from '../did-you-mean.ts';
import { type InstallScope, scopeOf } from '../install-scope.ts';
import { readLockfile } from '../install-tree.ts';
import {
  applyTargets,
  DEFAULT_ROOT,
  dirRoot,
  type InstallOutcome,
  lookUpLifecycle,
  parentOf,
  pinLockfileKeys,
  requireProvenance,
  resolveTargets,
  targetFromLock,
  warnLifecycle,
} from '../installer.ts';
import type { CommandIo } from '../ui.ts';
import { emptyLockfile, LOCKFILE_NAME, requireTrustedRoots, withDir } from '../lockfile.ts';
import { clientsFor, RegistryClient } from '../registry-client.ts';
import type { SuspiciousVersion } from '../scan-findings.ts';
import { checkSuspicious } from '../suspicious-check.ts';
import { type Consent, type ConsentOptions, consentToEffects, prepareEffects } from '../effects-consent.ts';
import { formatBytes, plural, type Ui } from '../ui.ts';
import { parseRequest } from '../version-spec.ts';

export interface InstallOptions {
  registry: string;
  /** The registry was chosen by the user (flag or environment), not defaulted. */
  registryChosen: boolean;
  /** `slug`, `slug@1.2.3` or `slug@range`; none reproduces the lockfile. */
  specs: string[];
  dir?: string;
  /** Agent ids (`--agent`, repeated or comma-separated): several share one install, linked into each. */
  agents?: string[];
  token?: string;
  /** Replace an existing folder that skillpress did not install. */
  force?: boolean;
  /** Install versions the registry's scan flags as suspicious. */
  allowSuspicious?: boolean;
  /** Refuse versions not published from CI by a trusted publisher (`no_provenance`). */
  requireProvenance?: boolean;
  /** Install for the user (`-g`): the agents' user-level folders, a lockfile of its own. */
  global?: boolean;
  /** `--yes`, `--strict`: how effects beyond a skill's folder are consented to (cli/effects-consent.ts). */
  consent?: ConsentOptions;
  /** `--allow-pending`: a version the registry is still observing may be chosen. */
  allowPending?: boolean;
}

/**
 * The install root the options ask for, or undefined when they leave it to the lockfile, and the
 * other agents' folders to link the skills into. One agent: its own folder. Several: the shared
 * folder most of them read, linked into each of the others' (as the `skills` CLI installs).
 */
export function chosenRoot(options: { dir?: string; agents?: string[] }, scope: InstallScope): { root?: string; linkRoots: string[] } {
  const agents = options.agents ?? [];
  if (options.dir !== undefined && agents.length > 0) throw usage('use --dir or --agent, not both');
  if (agents.length > 0) {
    const folders = agents.map((agent) => {
      const folder = scope.agentFolder(agent);
      if (folder) return folder;
      if (folder === null) throw usage(`${agent} has no user-level skills folder`, 'install it into a project instead: leave out -g');
      const near = didYouMean(agent, Object.keys(AGENTS));
      throw usage(
        `unknown agent "${agent}"${near ? `: ${near}` : ''}`,
        `known agents (as the skills CLI names them): ${Object.keys(AGENTS).join(', ')}; or choose a folder with --dir`,
      );
    });
    const distinct = [...new Set(folders)];
    if (distinct.length === 1) return { root: distinct[0]!, linkRoots: [] };
    return { root: SHARED_SKILLS_FOLDER, linkRoots: distinct.filter((folder) => folder !== SHARED_SKILLS_FOLDER) };
  }
  return { root: options.dir === undefined ? undefined : dirRoot(options.dir, scope), linkRoots: [] };
}

/**
 * `skillpress install [slug[@version|@range]...]`: resolves, downloads, verifies and installs
 * the named skills and their dependencies. With no names it reproduces `skillpress-lock.json`
 * exactly, and fails with `integrity_mismatch` (exit 3) if the registry now serves other bytes.
 * A range or "latest" never picks a yanked version; one the lockfile pins (or that is asked for
 * by version) installs with a warning, as does a deprecated skill.
 */
export async function install(options: InstallOptions, io: CommandIo): Promise<InstallOutcome & { suspicious?: SuspiciousVersion[]; consent?: Consent }> {
  const started = io.now();
  const scope = scopeOf(options.global === true, io);
  const { root, linkRoots } = chosenRoot(options, scope);
  const client = new RegistryClient(options.registry, io);
  const clientFor = clientsFor(client, io, options.registryChosen);
  const ctx = { io, ui: io.ui, client, token: options.token, force: options.force, ownTokens: true };
  const existing = await readLockfile(scope, io.ui.line);
  if (existing) pinLockfileKeys(existing, clientFor);
  // Named skills are resolved with this registry, whose keys every download's signature needs.
  if (options.specs.length > 0) client.prefetchKeys();

  let outcome: InstallOutcome;
  let suspicious: SuspiciousVersion[] = [];
  let consent: Consent | undefined;
  if (options.specs.length === 0) {
    if (!existing) {
      throw usage(
        `nothing to install: there is no ${scope.global ? scope.lockfileShown : `${LOCKFILE_NAME} here`}`,
        `install a skill by name: skillpress install ${scope.global ? '-g ' : ''}<slug>`,
      );
    }
    if ((options.agents ?? []).length > 0) throw usage('--agent applies to named skills; the lockfile already says where each skill goes');
    requireTrustedRoots(existing, scope.agentRoots, root === undefined ? [] : [root], scope.lockfileShown);
    const targets = [...existing.skills].map(([slug, entry]) => targetFromLock(slug, entry));
    const looked = await lookUpLifecycle(targets, clientFor);
    if (options.requireProvenance) requireProvenance(looked);
    warnLifecycle(io.ui, looked);
    outcome = await applyTargets(ctx, targets, existing, scope, clientFor);
  } else {
    // A --dir root is recorded, so that the lockfile may name it when it is read again.
    const confirmed = options.dir !== undefined && root !== undefined ? [root] : [];
    if (existing) requireTrustedRoots(existing, scope.agentRoots, confirmed, scope.lockfileShown);
    const lock = confirmed.length > 0 ? withDir(existing ?? emptyLockfile(), root!) : (existing ?? emptyLockfile());
    const requests = options.specs.map(parseRequest).map((r) => {
      const installed = lock.skills.get(r.slug);
      // An explicit --dir/--agent wins; otherwise a skill stays where it is installed.
      const links = linkRoots.length > 0 ? linkRoots.map((linkRoot) => `${linkRoot}/${r.slug}`) : root === undefined ? installed?.links : undefined;
      return { ...r, direct: true, path: `${root ?? (installed ? parentOf(installed.path) : DEFAULT_ROOT)}/${r.slug}`, ...(links ? { links } : {}) };
    });
    const repeated = requests.find((r, i) => requests.findIndex((o) => o.slug === r.slug) !== i);
    if (repeated) throw usage(`${repeated.slug} is named twice`);
    const resolving = resolveTargets(ctx, requests, lock, { allowPending: options.allowPending });
    // Once the lookups are sent: the versions they resolve to carry effects to read, whose schema
    // loads while the registry answers. A failure to load is the one reading effects then gives.
    prepareEffects().catch(() => undefined);
    const resolved = await resolving;
    if (options.requireProvenance) requireProvenance(resolved);
    warnLifecycle(io.ui, resolved);
    suspicious = checkSuspicious(resolved, lock, options.allowSuspicious === true, io.ui);
    const consented = await consentToEffects(resolved, lock, options.consent ?? {}, io);
    consent = consented.consent;
    outcome = await applyTargets(ctx, consented.targets, lock, scope, clientFor);
  }
  printOutcome(io.ui, outcome, io.now() - started, options.specs.length > 0, scope.shown);
  return { ...outcome, ...(suspicious.length > 0 ? { suspicious } : {}), ...(consent ? { consent } : {}) };
}

/** The human summary; unchanged skills are named one by one only when the user named them. */
export function printOutcome(ui: Ui, outcome: InstallOutcome, ms: number, nameUnchanged: boolean, shown = (path: string) => path): void {
  const { c } = ui;
  for (const s of outcome.installed) {
    const where = c.dim(`${shown(s.path)} · ${plural(s.files, 'file')}, ${formatBytes(s.bytes)}${s.direct ? '' : ' · dependency'}`);
    if (s.previous && s.previous !== s.version) ui.line(`${c.green('↑')} ${c.bold(s.slug)} ${s.previous} → ${c.green(s.version)}  ${where}`);
    else ui.line(`${c.green('+')} ${c.bold(s.slug)}@${s.version}  ${where}`);
  }
  if (nameUnchanged) for (const s of outcome.unchanged) ui.line(`${c.dim('=')} ${s.slug}@${s.version} ${c.dim('already installed')}`);
  else if (outcome.unchanged.length > 0) ui.line(`${c.dim('=')} ${plural(outcome.unchanged.length, 'skill')} ${c.dim('already installed and intact')}`);
  for (const slug of outcome.removed) ui.line(`${c.red('-')} ${slug} ${c.dim('(no longer needed)')}`);
  const seconds = (ms / 1000).toFixed(1);
  if (outcome.installed.length === 0) ui.line(c.dim(`Everything is up to date (${seconds} s).`));
  else ui.line(c.dim(`Installed ${plural(outcome.installed.length, 'skill')} in ${seconds} s; ${outcome.lockfile} updated.`));
}
