import semver from 'semver';
import { CliError, usage } from '../cli-error.ts';
import { readLockfile } from '../install-tree.ts';
import { applyTargets, dirRoot, type InstallOutcome, pinLockfileKeys, resolveTargets, warnLifecycle } from '../installer.ts';
import { requireTrustedRoots } from '../lockfile.ts';
import type { CommandIo } from '../ui.ts';
import { scopeOf } from '../install-scope.ts';
import { clientsFor, RegistryClient } from '../registry-client.ts';
import type { SuspiciousVersion } from '../scan-findings.ts';
import { checkSuspicious } from '../suspicious-check.ts';
import { type Consent, type ConsentOptions, decideConsent, effectsToShow, printEffects } from '../effects-consent.ts';
import { plural } from '../ui.ts';
import { LATEST } from '../../core/version-choice.ts';
import { type Changelog, changelogsBetween } from '../version-spec.ts';
import { printOutcome } from './install.ts';

export interface UpdateOptions {
  registry: string;
  registryChosen: boolean;
  /** Skills to update; none updates every installed skill. */
  slugs: string[];
  token?: string;
  dryRun: boolean;
  /** Update to versions the registry's scan flags as suspicious. */
  allowSuspicious?: boolean;
  /** The user-level install (`-g`) instead of the project's. */
  global?: boolean;
  /** A root the lockfile lists in `dirs` that the user confirms (`--dir`). */
  dir?: string;
  /** `--yes`, `--strict`: how new effects beyond a skill's folder are consented to (cli/effects-consent.ts). */
  consent?: ConsentOptions;
  /** `--allow-pending`: a version the registry is still observing may be chosen. */
  allowPending?: boolean;
}

export interface PlannedUpdate {
  slug: string;
  from: string;
  to: string;
  /** Oldest first: what changed between the installed version and the target. */
  changelogs: Changelog[];
}

export interface UpdateResult extends InstallOutcome {
  dryRun: boolean;
  updates: PlannedUpdate[];
  /** Skills pinned to a spec that a newer release does not satisfy. */
  held: { slug: string; version: string; spec: string; latest: string }[];
  /** Suspicious versions updated to with --allow-suspicious. */
  suspicious?: SuspiciousVersion[];
  /** The effects each update adds, and whether they went ahead (`not_needed` on a dry run that asked nothing). */
  consent: Consent;
}

/**
 * `skillpress update [slug...]`: moves installed skills to the newest version their spec allows
 * (`latest` for a plain install, the highest match for a range, never a yanked one), printing
 * every changelog in between first, and warning about deprecated skills. `--dry-run` stops after
 * the preview.
 */
export async function update(options: UpdateOptions, io: CommandIo): Promise<UpdateResult> {
  const started = io.now();
  const { ui } = io;
  const { c } = ui;
  const scope = scopeOf(options.global === true, io);
  const here = scope.global ? 'for your user (-g)' : 'here';
  const lock = await readLockfile(scope, io.ui.line);
  if (!lock || lock.skills.size === 0) throw new CliError('not_installed', `nothing to update: no skills in ${scope.lockfileShown} ${here}`);
  requireTrustedRoots(lock, scope.agentRoots, options.dir === undefined ? [] : [dirRoot(options.dir, scope)], scope.lockfileShown);
  for (const slug of options.slugs) {
    if (!lock.skills.has(slug)) {
      throw new CliError('not_installed', `${slug} is not installed ${here}`, {
        hint: `install it first: skillpress install ${scope.global ? '-g ' : ''}${slug}`,
      });
    }
  }
  if (new Set(options.slugs).size !== options.slugs.length) throw usage('a skill is named twice');

  const names = options.slugs.length > 0 ? options.slugs : [...lock.skills.keys()].sort();
  const locked = (slug: string) => lock.skills.get(slug)!;
  const registries = new Set(names.map((slug) => locked(slug).registry));
  const base = options.registryChosen || registries.size !== 1 ? options.registry : [...registries][0]!;
  const client = new RegistryClient(base, io, options.registry);
  // The links into other agents' folders stay with the skill (dropping them left a link behind on uninstall).
  const requests = names.map((slug) => {
    const { spec, direct, path, links } = locked(slug);
    return { slug, spec, direct, path, ...(links ? { links } : {}) };
  });
  const clientFor = clientsFor(client, io, false);
  pinLockfileKeys(lock, clientFor);
  const resolved = await resolveTargets({ io, ui, client, token: options.token }, requests, lock, { allVersions: true, allowPending: options.allowPending });
  warnLifecycle(ui, resolved);
  const shown = await effectsToShow(resolved, lock);
  const targets = shown.targets;

  const updates: PlannedUpdate[] = [];
  const held: UpdateResult['held'] = [];
  for (const t of targets) {
    const installed = lock.skills.get(t.slug);
    const available = t.available ?? [];
    if (installed && installed.version !== t.version) {
      updates.push({ slug: t.slug, from: installed.version, to: t.version, changelogs: changelogsBetween(available, installed.version, t.version) });
    }
    const latest = t.currentVersion;
    if (latest && semver.gt(latest, t.version) && t.spec !== LATEST && names.includes(t.slug)) {
      held.push({ slug: t.slug, version: t.version, spec: t.spec, latest });
    }
  }

  for (const u of updates) {
    ui.line(`${c.bold(u.slug)} ${u.from} → ${c.green(u.to)}`);
    if (u.changelogs.length === 0) ui.line(c.dim('  (a lower version: no changelogs to show)'));
    for (const entry of u.changelogs) {
      const [first = '', ...rest] = (entry.changelog || c.dim('no changelog')).split('\n');
      ui.line(`  ${c.cyan(entry.version.padEnd(10))} ${first}`);
      for (const line of rest) ui.line(`  ${' '.repeat(10)} ${line}`);
    }
  }
  printEffects(ui, shown.versions);
  for (const h of held) ui.line(c.dim(`${h.slug} stays at ${h.version} (asked for ${h.spec}); ${h.latest} is out: skillpress install ${h.slug}@${h.latest}`));

  if (options.dryRun || updates.length === 0) {
    if (updates.length === 0) ui.line(c.dim('Everything is up to date.'));
    else ui.line(c.dim(`Dry run: ${plural(updates.length, 'update')} not applied.`));
    const consent: Consent = { decision: 'not_needed', versions: shown.versions };
    return { dryRun: options.dryRun, updates, held, installed: [], unchanged: [], removed: [], lockfile: scope.lockfileShown, consent };
  }
  ui.line();
  const suspicious = checkSuspicious(targets, lock, options.allowSuspicious === true, ui);
  const consent = await decideConsent(shown.versions, options.consent ?? {}, io, 'update');
  const outcome = await applyTargets({ io, ui, client, token: options.token }, targets, lock, scope, clientFor);
  printOutcome(ui, outcome, io.now() - started, false, scope.shown);
  return { dryRun: false, updates, held, ...outcome, ...(suspicious.length > 0 ? { suspicious } : {}), consent };
}
