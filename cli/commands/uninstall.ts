import { CliError, usage } from '../cli-error.ts';
import { readLockfile, writeLockfile } from '../install-tree.ts';
import { dirRoot, removeInstalled } from '../installer.ts';
import type { CommandIo } from '../ui.ts';
import { scopeOf } from '../install-scope.ts';
import { pruneOrphans, requireTrustedRoots } from '../lockfile.ts';

export interface UninstallOptions {
  slugs: string[];
  /** The user-level install (`-g`) instead of the project's. */
  global?: boolean;
  /** A root the lockfile lists in `dirs` that the user confirms (`--dir`). */
  dir?: string;
}

export interface UninstallResult {
  removed: string[];
  /** Named skills kept because another installed skill depends on them. */
  kept: { slug: string; neededBy: string[] }[];
  lockfile: string;
}

/**
 * `skillpress uninstall <slug...>`: removes the skills, and the dependencies nothing else needs.
 * A skill that another installed skill depends on stays, no longer counted as asked for.
 */
export async function uninstall(options: UninstallOptions, io: CommandIo): Promise<UninstallResult> {
  if (options.slugs.length === 0) throw usage('name the skills to remove: skillpress uninstall <slug...>');
  const scope = scopeOf(options.global === true, io);
  const lock = await readLockfile(scope, io.ui.line);
  for (const slug of options.slugs) {
    if (!lock?.skills.has(slug)) {
      throw new CliError(
        'not_installed',
        `${slug} is not installed ${scope.global ? 'for your user (-g)' : 'here'} (see skillpress list${scope.global ? ' -g' : ''})`,
      );
    }
  }
  requireTrustedRoots(lock!, scope.agentRoots, options.dir === undefined ? [] : [dirRoot(options.dir, scope)], scope.lockfileShown);
  const skills = new Map(lock!.skills);
  for (const slug of options.slugs) skills.set(slug, { ...skills.get(slug)!, direct: false });
  const { lock: next, removed } = pruneOrphans({ ...lock!, skills });
  const kept = options.slugs
    .filter((slug) => next.skills.has(slug))
    .map((slug) => ({
      slug,
      neededBy: [...next.skills]
        .filter(([, entry]) => Object.hasOwn(entry.dependencies ?? {}, slug))
        .map(([other]) => other)
        .sort(),
    }));

  await writeLockfile(scope, next);
  for (const slug of removed) await removeInstalled(scope.root, skills.get(slug)!, io.ui);

  const { ui } = io;
  const { c } = ui;
  for (const slug of removed) ui.line(`${c.red('-')} ${slug} ${c.dim(`(${scope.shown(skills.get(slug)!.path)})`)}`);
  for (const k of kept) ui.line(`${c.dim('=')} ${k.slug} ${c.dim(`stays: ${k.neededBy.join(', ')} ${k.neededBy.length === 1 ? 'depends' : 'depend'} on it`)}`);
  return { removed, kept, lockfile: scope.lockfileShown };
}
