import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import semver from 'semver';
import { mapLimit } from '../../core/map-limit.ts';
import { CliError } from '../cli-error.ts';
import { scopeOf } from '../install-scope.ts';
import { folderMatches, readLockfile } from '../install-tree.ts';
import type { CommandIo } from '../ui.ts';
import { clientsFor, RegistryClient } from '../registry-client.ts';
import { columns, plural } from '../ui.ts';

export interface ListOptions {
  registry: string;
  registryChosen: boolean;
  /** Skip the registry: no outdated marks, no network. */
  offline: boolean;
  /** The user-level install (`-g`) instead of the project's. */
  global?: boolean;
}

export interface ListedSkill {
  slug: string;
  version: string;
  /** The registry's current version; null when it could not be asked. */
  latest: string | null;
  /** The author's deprecation message; null when the skill is not deprecated (or the registry could not be asked). */
  deprecated: string | null;
  /** Whether the installed version is yanked, as far as the registry's recent versions tell. */
  yanked: boolean;
  outdated: boolean;
  path: string;
  direct: boolean;
  paid: boolean;
  /** `ok`, or what `skillpress install` would repair: files changed or gone since the install. */
  state: 'ok' | 'modified' | 'missing';
}

export interface ListResult {
  skills: ListedSkill[];
}

/**
 * `skillpress list`: installed skills from the lockfile, checked on disk and against the
 * registry, which also says which are deprecated and which installed versions are yanked.
 */
export async function list(options: ListOptions, io: CommandIo): Promise<ListResult> {
  const { ui } = io;
  const { c } = ui;
  const scope = scopeOf(options.global === true, io);
  const lock = await readLockfile(scope, io.ui.line);
  const entries = [...(lock?.skills ?? [])].sort(([a], [b]) => (a < b ? -1 : 1));
  const clientFor = clientsFor(new RegistryClient(options.registry, io), io, options.registryChosen);
  let unreachable = false;
  const skills = await mapLimit(entries, 8, async ([slug, entry]): Promise<ListedSkill> => {
    const [doc, onDisk] = await Promise.all([
      options.offline
        ? null
        : clientFor(entry.registry)
            .skill(slug)
            .catch((error: unknown) => {
              if (error instanceof CliError && error.code === 'network_error') unreachable = true;
              if (error instanceof CliError && error.code === 'quarantined') ui.warn(`${error.message}; remove it: skillpress uninstall ${slug}`);
              return null;
            }),
      folderMatches(join(scope.root, entry.path), entry.files),
    ]);
    const latest = doc?.currentVersion ?? null;
    const state = onDisk ? 'ok' : (await exists(join(scope.root, entry.path))) ? 'modified' : 'missing';
    return {
      slug,
      version: entry.version,
      latest,
      deprecated: typeof doc?.deprecated === 'string' ? doc.deprecated : null,
      yanked: doc?.versions.some((v) => v.version === entry.version && v.yanked === true) ?? false,
      outdated: latest !== null && semver.gt(latest, entry.version),
      path: entry.path,
      direct: entry.direct,
      paid: entry.paid,
      state,
    };
  });
  if (unreachable) ui.warn('the registry could not be reached; showing installed versions only');

  if (skills.length === 0) {
    ui.line(`No skills installed ${scope.global ? 'for your user' : 'here'}. Find some with: skillpress search <words>`);
    return { skills };
  }
  const rows = skills.map((s) => [
    c.bold(s.slug),
    s.version,
    s.latest === null ? c.dim('?') : s.outdated ? c.yellow(`${s.latest} available`) : c.green('latest'),
    c.dim(scope.shown(s.path)),
    [
      s.direct ? '' : 'dependency',
      s.paid ? 'paid' : '',
      s.deprecated === null ? '' : c.yellow('deprecated'),
      s.yanked ? c.red('yanked') : '',
      s.state === 'ok' ? '' : c.red(s.state),
    ]
      .filter(Boolean)
      .join(', '),
  ]);
  for (const row of columns(rows)) ui.line(row);
  for (const s of skills) if (s.deprecated !== null) ui.warn(`${s.slug} is deprecated: ${s.deprecated}`);
  const outdated = skills.filter((s) => s.outdated).length;
  const broken = skills.filter((s) => s.state !== 'ok').length;
  const notes = [outdated ? `${outdated} outdated: skillpress update` : '', broken ? `${broken} changed on disk: skillpress install restores them` : ''].filter(
    Boolean,
  );
  ui.line(c.dim(`${plural(skills.length, 'skill')}${notes.length ? `; ${notes.join('; ')}` : ''}.`));
  return { skills };
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );
