import type { Effects } from '../core/effects/effect.ts';
import { effectKeys, evidenceLine, newEffects, type ShownEffect, shownEffects } from '../core/effects/effect-words.ts';
import type { VersionSummary } from '../core/registry-document.ts';
import { CliError } from './cli-error.ts';
import type { Target } from './installer.ts';
import type { Lockfile } from './lockfile.ts';
import type { CommandIo, Ui } from './ui.ts';
import { choosable } from '../core/version-choice.ts';

/**
 * Shown and consented (docs/api.md, "Behaviour"): before `install` or `update` writes anything,
 * it prints what each version it brings does outside its own folder when run, in plain words
 * with the evidence, and on a terminal asks before installing one with any such effect. An
 * update shows only what its version adds to what was accepted for the installed one, so a new
 * host or a new persistence write stands out as a diff. The lockfile records what was accepted.
 */

/** How many pieces of evidence are printed under one effect; the JSON result has them all. */
const EVIDENCE_SHOWN = 3;

/** The behaviour and effects a version summary carries (absent from registries and versions older than observation). */
export function observationOf(summary: VersionSummary): Pick<Target, 'behaviour' | 'effects'> {
  const { behaviour, effects } = summary as VersionSummary & { behaviour?: unknown; effects?: unknown };
  return {
    // Anything but a word is no clearance: it is never chosen by a range.
    ...(behaviour === undefined ? {} : { behaviour: typeof behaviour === 'string' ? behaviour : 'unreadable' }),
    ...(effects === undefined ? {} : { effects }),
  };
}

/**
 * The behaviour and effects a version's signature covers (docs/api.md §11.11), as the registry
 * served them: what was shown is what the signature is checked against before the download. Its
 * type says nothing of the fields, which the signature alone vouches for.
 */
export function signedObservation(t: Pick<Target, 'behaviour' | 'effects'>): object {
  return { ...(t.behaviour === undefined ? {} : { behaviour: t.behaviour }), ...(t.effects === undefined ? {} : { effects: t.effects }) };
}

/** When no version matched because the matching ones are still observed: the advice to pass `--allow-pending`. */
export function unclearedHint(versions: readonly Pick<VersionSummary, 'version'>[], allowPending: boolean): { hint?: string } {
  const pending = versions.filter((v) => (v as { behaviour?: unknown }).behaviour === 'pending').map((v) => v.version);
  if (allowPending || pending.length === 0) return {};
  return { hint: `${pending.join(', ')} ${pending.length === 1 ? 'is' : 'are'} still being observed by the registry: wait, or pass --allow-pending` };
}

/** What one version about to be installed does, as far as it was shown. */
export interface VersionEffects {
  slug: string;
  version: string;
  /** `cleared` (or absent from the registry, before observation), `pending` or `refused`. */
  behaviour: string;
  /** False for a version published before observation: its effects are not known. */
  observed: boolean;
  /** The installed version the effects are compared with; absent for a new install. */
  since?: string;
  /** Every effect of a new install; for an update, only those the installed version did not have. */
  effects: ShownEffect[];
}

/**
 * Whether the effects went ahead: `not_needed` when nothing shown had any; `accepted` by
 * `terminal` (the user said yes), `yes` (`--yes`) or `no_terminal` (printed and went ahead).
 */
export interface Consent {
  decision: 'not_needed' | 'accepted';
  by?: 'terminal' | 'yes' | 'no_terminal';
  versions: VersionEffects[];
}

export interface ConsentOptions {
  /** `--yes`: accept without asking. */
  yes?: boolean;
  /** `--strict`: with no terminal to ask on, refuse rather than go ahead. */
  strict?: boolean;
}

let schema: Promise<typeof import('../core/effects/effects-schema.ts')['effectsSchema']> | undefined;

/**
 * Loads the effects' schema (and zod) and builds it, once: what reading the first effects
 * costs. Commands that will read effects call this before they wait on the network, so that
 * cost is paid while the registry answers rather than after.
 */
export function prepareEffects(): Promise<typeof import('../core/effects/effects-schema.ts')['effectsSchema']> {
  schema ??= import('../core/effects/effects-schema.ts').then(({ effectsSchema }) => {
    // The first parse builds the schema's checks: done here, on an empty value, rather than on the first version's.
    effectsSchema.safeParse(undefined);
    return effectsSchema;
  });
  return schema;
}

/** The effects a registry served, read with the one schema; a registry serving others is refused. */
async function readEffects(t: Pick<Target, 'slug' | 'version'>, value: unknown): Promise<Effects> {
  // The schema (and zod) load only when a version carries effects, keeping them off the commands that read none.
  const effectsSchema = await prepareEffects();
  const parsed = effectsSchema.safeParse(value);
  if (!parsed.success) throw new CliError('bad_response', `the registry's effects of ${t.slug}@${t.version} are malformed; refusing it`);
  return parsed.data as Effects;
}

/**
 * What was accepted for the installed version: the effects the lockfile records, kept only where
 * the registry (when it lists that version) still says the version has them, so a lockfile cannot
 * accept more than the version it pins does. Without a record, the registry's effects of it.
 */
async function acceptedBefore(t: Target, installed: { version: string; consented?: string[] }): Promise<string[]> {
  const listed = t.available?.find((v) => v.version === installed.version);
  const served = listed ? observationOf(listed).effects : undefined;
  const registry = served === undefined ? undefined : effectKeys(await readEffects({ slug: t.slug, version: installed.version }, served));
  if (installed.consented && registry) return installed.consented.filter((key) => registry.includes(key));
  return installed.consented ?? registry ?? [];
}

/**
 * The effects of the targets about to change (a version already installed intact is not shown
 * again), each with the lockfile's record of what it accepted, and the targets with what they
 * will record once accepted.
 */
export async function effectsToShow(targets: readonly Target[], lock: Lockfile): Promise<{ versions: VersionEffects[]; targets: Target[] }> {
  const versions: VersionEffects[] = [];
  const next: Target[] = [];
  for (const t of targets) {
    const installed = lock.skills.get(t.slug);
    if (installed?.version === t.version) {
      next.push(t);
      continue;
    }
    const behaviour = t.behaviour ?? 'cleared';
    if (t.effects === undefined) {
      versions.push({ slug: t.slug, version: t.version, behaviour, observed: false, ...(installed ? { since: installed.version } : {}), effects: [] });
      next.push({ ...t, consented: undefined });
      continue;
    }
    const effects = await readEffects(t, t.effects);
    const known = installed ? await acceptedBefore(t, installed) : [];
    versions.push({
      slug: t.slug,
      version: t.version,
      behaviour,
      observed: true,
      ...(installed ? { since: installed.version } : {}),
      effects: shownEffects(newEffects(effects, known)),
    });
    next.push({ ...t, consented: effectKeys(effects) });
  }
  return { versions, targets: next };
}

/** Prints each version's effects beyond its folder, or that it has none, or that they are not known. */
export function printEffects(ui: Ui, versions: readonly VersionEffects[]): void {
  const { c } = ui;
  for (const v of versions) {
    const name = `${c.bold(v.slug)}@${v.version}`;
    if (v.behaviour === 'refused')
      ui.warn(`${v.slug}@${v.version} was refused by the registry's observation; installing it because it was asked for by version`);
    else if (!choosable(v)) ui.warn(`${v.slug}@${v.version} is still being observed by the registry: what it does when run may be more than its text shows`);
    if (!v.observed) {
      ui.line(`${name} ${c.dim('was published before skills were observed: what it does when run is not known')}`);
      continue;
    }
    if (v.effects.length === 0) {
      ui.line(`${name} ${c.dim(v.since ? `does nothing new outside its folder when run (since ${v.since})` : 'does nothing outside its folder when run')}`);
      continue;
    }
    ui.line(`${name} ${v.since ? `adds, since ${v.since}, when run:` : 'when run:'}`);
    for (const e of v.effects) {
      ui.line(`  ${c.yellow('•')} ${e.sentence}`);
      for (const ev of e.evidence.slice(0, EVIDENCE_SHOWN)) ui.line(`      ${c.dim(evidenceLine(ev))}`);
      if (e.evidence.length > EVIDENCE_SHOWN) ui.line(`      ${c.dim(`and ${e.evidence.length - EVIDENCE_SHOWN} more`)}`);
    }
  }
}

/** A yes or no on the terminal: the first line of input, yes only when it says so. */
async function askYes(io: CommandIo, question: string): Promise<boolean> {
  io.stderr.write(`${question} [y/N] `);
  let answer = '';
  for await (const chunk of io.stdin) {
    answer += chunk.toString();
    if (answer.includes('\n')) break;
  }
  return /^\s*y(es)?\s*$/i.test(answer.split('\n')[0] ?? '');
}

/**
 * Whether the versions shown go ahead: without any effect to show, yes; with `--yes`, yes; on a
 * terminal, the user's answer (`consent_declined` when no); with no terminal (or `--json`), yes
 * unless `--strict` (`consent_required`). Both refusals change nothing and exit 1.
 */
export async function decideConsent(versions: VersionEffects[], options: ConsentOptions, io: CommandIo, verb: 'install' | 'update'): Promise<Consent> {
  const asking = versions.filter((v) => v.effects.length > 0);
  if (asking.length === 0) return { decision: 'not_needed', versions };
  if (options.yes) return { decision: 'accepted', by: 'yes', versions };
  const names = asking.map((v) => `${v.slug}@${v.version}`).join(', ');
  if (io.stdin.isTTY === true && !io.ui.json) {
    if (await askYes(io, `${verb === 'install' ? 'Install' : 'Update to'} ${names} with these effects?`))
      return { decision: 'accepted', by: 'terminal', versions };
    throw new CliError('consent_declined', `you declined the effects of ${names}; nothing was ${verb === 'install' ? 'installed' : 'updated'}`, {
      details: { versions: asking },
    });
  }
  if (options.strict) {
    throw new CliError(
      'consent_required',
      `${names} ${asking.length === 1 ? 'has' : 'have'} effects beyond ${asking.length === 1 ? 'its' : 'their'} folder and there is no terminal to ask; nothing was ${verb === 'install' ? 'installed' : 'updated'}`,
      {
        details: { versions: asking },
        hint: 'read the effects above; accept them with --yes',
      },
    );
  }
  io.ui.warn(`${io.ui.json ? 'not asked under --json' : 'no terminal to ask'}: going ahead with the effects of ${names} (--strict refuses instead)`);
  return { decision: 'accepted', by: 'no_terminal', versions };
}

/** `install`'s one call: show the effects of the targets about to change, decide, and give the targets with what they record. */
export async function consentToEffects(
  targets: readonly Target[],
  lock: Lockfile,
  options: ConsentOptions,
  io: CommandIo,
): Promise<{ consent: Consent; targets: Target[] }> {
  const shown = await effectsToShow(targets, lock);
  printEffects(io.ui, shown.versions);
  return { consent: await decideConsent(shown.versions, options, io, 'install'), targets: shown.targets };
}
