import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { limits } from '#core/limits';

/**
 * Skills read from git repositories (bare or not: `git` reads the object store, no work tree is
 * needed), for benchmarks that need real skills: every folder with a `SKILL.md` at HEAD is one
 * skill, with the files under it. The repositories come from an environment variable, a list of
 * git directories separated by `:` (`SKILLPRESS_BENIGN_REPOS`), so the benchmarks never carry
 * anyone's content.
 */
export interface GitSkill {
  /** The repository's folder name, e.g. `anthropics+skills`. */
  repo: string;
  /** The skill's folder in the repository (`.` for a skill at its root). */
  folder: string;
  files: { filename: string; bytes: Uint8Array; executable: boolean }[];
  /** Files left out because a version could not hold them (too large, too many). */
  skipped: number;
}

export const BENIGN_REPOS_VARIABLE = 'SKILLPRESS_BENIGN_REPOS';

/** The git directories the variable names, each as given; an empty list when it is unset. */
export function benignRepoDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env[BENIGN_REPOS_VARIABLE] ?? '').split(':').filter(Boolean);
}

/** Every skill in the repository at `gitDir` (its HEAD), in path order. */
export function readGitSkills(gitDir: string): GitSkill[] {
  if (!existsSync(gitDir)) throw new Error(`${gitDir}: no such git directory`);
  const git = (args: string[], input?: string) =>
    execFileSync('git', ['--git-dir', gitDir, ...args], { input, maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'ignore'] });
  // mode, type, object, size, then a tab and the path; -z keeps odd paths intact.
  const entries = git(['ls-tree', '-r', '-z', '--long', 'HEAD'])
    .toString('utf8')
    .split('\0')
    .filter(Boolean)
    .flatMap((line) => {
      const tab = line.indexOf('\t');
      const [mode, type, object, size] = line.slice(0, tab).split(/\s+/);
      return type === 'blob' ? [{ mode: mode!, object: object!, size: Number(size), path: line.slice(tab + 1) }] : [];
    });
  const folders = entries.filter((e) => path.posix.basename(e.path) === 'SKILL.md').map((e) => path.posix.dirname(e.path));
  const repo = path.basename(gitDir === '.' ? process.cwd() : gitDir.replace(/\/(repo|\.git)\/?$/, ''));
  // A skill's files are those under its folder that no deeper skill folder claims.
  const owner = (file: string) => folders.filter((f) => f === '.' || file.startsWith(`${f}/`)).sort((a, b) => b.length - a.length)[0];
  const skills = new Map<string, { entries: typeof entries; skipped: number }>(folders.map((f) => [f, { entries: [], skipped: 0 }]));
  for (const entry of entries) {
    const folder = owner(entry.path);
    if (folder === undefined) continue;
    const skill = skills.get(folder)!;
    // Symlinks and submodules are not files of a skill; anything past the limits is left out.
    const total = skill.entries.reduce((n, e) => n + e.size, 0);
    if (
      entry.mode === '120000' ||
      entry.size > limits.fileBytes ||
      total + entry.size > limits.versionBytes ||
      skill.entries.length >= limits.filesPerVersion
    ) {
      skill.skipped++;
      continue;
    }
    skill.entries.push(entry);
  }
  const wanted = [...skills.values()].flatMap((s) => s.entries);
  const contents = readBlobs(
    gitDir,
    wanted.map((e) => e.object),
  );
  return [...skills.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([folder, { entries: files, skipped }]) => ({
      repo,
      folder,
      skipped,
      files: files.map((e) => ({
        filename: folder === '.' ? e.path : e.path.slice(folder.length + 1),
        bytes: contents.get(e.object)!,
        executable: e.mode === '100755',
      })),
    }));
}

/** The bytes of each blob, in one `git cat-file --batch`. */
function readBlobs(gitDir: string, objects: string[]): Map<string, Uint8Array> {
  const unique = [...new Set(objects)];
  const out = execFileSync('git', ['--git-dir', gitDir, 'cat-file', '--batch'], { input: `${unique.join('\n')}\n`, maxBuffer: 1 << 30 });
  const blobs = new Map<string, Uint8Array>();
  let at = 0;
  for (const object of unique) {
    const newline = out.indexOf(10, at);
    const [, , size] = out.subarray(at, newline).toString('utf8').split(' ');
    const start = newline + 1;
    blobs.set(object, new Uint8Array(out.subarray(start, start + Number(size))));
    at = start + Number(size) + 1;
  }
  return blobs;
}
