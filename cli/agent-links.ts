import { cp, lstat, mkdir, readlink, rm, symlink } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { CliError } from './cli-error.ts';
import { foreignEntry, realFolderProblem } from './install-tree.ts';
import type { LockedSkill } from './lockfile.ts';
import { installFolder } from './registry-names.ts';
import type { Ui } from './ui.ts';

/**
 * Several agents in one install, as the `skills` CLI does it: the skill lives once, in the
 * shared folder most agents read (`.agents/skills/<slug>`), and each other agent's folder holds
 * a link to it (`.claude/skills/<slug>` → `../../.agents/skills/<slug>`), or a copy where the
 * file system refuses links. The lockfile records each link (`links`), so a reinstall puts them
 * back and an uninstall removes them; a link path obeys the rules of an install path
 * (cli/lockfile.ts), and a folder there that is neither our link nor our copy is never replaced.
 */

/**
 * Makes `entry.links` point at `entry.path`: a relative symlink, or a copy of the installed files
 * when links fail. A link already right is left alone; a copy of ours is refreshed; anything else
 * there is refused unless `force`.
 */
export async function linkAgents(cwd: string, entry: Pick<LockedSkill, 'path' | 'files' | 'links'>, ui: Ui, force = false): Promise<void> {
  const target = installFolder(cwd, entry.path);
  for (const link of entry.links ?? []) {
    const at = installFolder(cwd, link);
    const problem = await realFolderProblem(cwd, link);
    if (problem) throw new CliError('unsafe_path', `refusing to link ${link}: it ${problem}`);
    const wanted = relative(dirname(at), target);
    const stat = await lstat(at).catch(() => undefined);
    if (stat?.isSymbolicLink() && (await readlink(at)) === wanted) continue;
    if (stat && !stat.isSymbolicLink() && !force && (await foreignEntry(at, entry.files)) !== undefined) {
      throw new CliError('folder_exists', `${link} already exists and holds files skillpress did not install or that changed since`, {
        hint: 'move it away, or pass --force to replace it',
      });
    }
    if (stat) await rm(at, { recursive: true, force: true });
    await mkdir(dirname(at), { recursive: true });
    try {
      await symlink(wanted, at, 'dir');
    } catch {
      // No links here (Windows without the privilege, some mounted file systems): a copy instead.
      await cp(target, at, { recursive: true });
      ui.warn(`${link}: links are not possible here, so it is a copy of ${entry.path}`);
    }
  }
}

/** Removes the links (or copies) of an uninstalled skill; a folder that holds anything else stays, with a warning. */
export async function unlinkAgents(cwd: string, entry: Pick<LockedSkill, 'path' | 'files' | 'links'>, ui: Ui): Promise<void> {
  for (const link of entry.links ?? []) {
    const at = resolve(cwd, ...link.split('/'));
    if (!at.startsWith(resolve(cwd) + sep)) continue;
    const stat = await lstat(at).catch(() => undefined);
    if (!stat) continue;
    if (stat.isSymbolicLink() || (await foreignEntry(at, entry.files)) === undefined) await rm(at, { recursive: true, force: true });
    else ui.warn(`left ${link} in place: it holds files skillpress did not install or that changed since`);
  }
}
