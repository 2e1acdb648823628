import { CliError, usage } from '../cli-error.ts';
import { readLockfile, writeLockfile } from '../install-tree.ts';
import { removeInstalled } from '../installer.ts';
import type { CommandIo } from '../ui.ts';
import { LOCKFILE_NAME, pruneOrphans } from '../lockfile.ts';

export interface UninstallOptions {
  slugs: string[];
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
  const lock = await readLockfile(io.cwd, io.ui.line);
  for (const slug of options.slugs) {
    if (!lock?.skills.has(slug)) throw new CliError('not_installed', `${slug} is not installed here (see skillpress list)`);
  }
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

  await writeLockfile(io.cwd, next);
  for (const slug of removed) await removeInstalled(io.cwd, skills.get(slug)!, io.ui);

  const { ui } = io;
  const { c } = ui;
  for (const slug of removed) ui.line(`${c.red('-')} ${slug} ${c.dim(`(${skills.get(slug)!.path})`)}`);
  for (const k of kept) ui.line(`${c.dim('=')} ${k.slug} ${c.dim(`stays: ${k.neededBy.join(', ')} ${k.neededBy.length === 1 ? 'depends' : 'depend'} on it`)}`);
  return { removed, kept, lockfile: LOCKFILE_NAME };
}
