import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ScanFile } from '#core/scan/scan';

/**
 * The real benign corpus: every skill (a folder with a SKILL.md) of public skill repositories,
 * read straight from their git directories, never copied into this repository. The directories
 * are named in SKILLPRESS_BENIGN_REPOS, separated by `:` (a bare repository or a `.git` folder;
 * the newest commit is read). Files are cut to what a publish accepts: 1 MiB each, 200 per skill.
 */

export const BENIGN_REPOS_VARIABLE = 'SKILLPRESS_BENIGN_REPOS';
/** Repositories never used to tune a rule: their figures are reported apart. */
export const UNSEEN_REPOS_VARIABLE = 'SKILLPRESS_UNSEEN_REPOS';

export interface RealSkill {
  /** `<repository>/<folder>`. */
  name: string;
  files: ScanFile[];
}

const FILE_LIMIT = 1024 * 1024;
const FILES_PER_SKILL = 200;

/** The repositories named in the environment (SKILLPRESS_BENIGN_REPOS unless another variable is given), and those of them that are missing. */
export function benignRepos(env: NodeJS.ProcessEnv = process.env, variable = BENIGN_REPOS_VARIABLE): { present: string[]; missing: string[] } {
  const dirs = (env[variable] ?? '').split(':').filter(Boolean);
  return { present: dirs.filter((d) => existsSync(d)), missing: dirs.filter((d) => !existsSync(d)) };
}

/** Every skill of a repository at its newest commit. */
export function realSkills(gitDir: string): RealSkill[] {
  const git = (args: string[], input?: string) => execFileSync('git', ['--git-dir', gitDir, ...args], { input, maxBuffer: 1024 * 1024 * 1024 });
  const entries = git(['ls-tree', '-r', '-l', '-z', 'HEAD'])
    .toString('utf8')
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const [meta, file] = line.split('\t') as [string, string];
      const [mode, type, sha, size] = meta.split(/\s+/) as [string, string, string, string];
      return { mode, type, sha, size: Number(size), file };
    })
    .filter((e) => e.type === 'blob');
  const roots = entries.filter((e) => path.posix.basename(e.file) === 'SKILL.md').map((e) => path.posix.dirname(e.file));
  const repo = path.basename(gitDir === '.git' ? process.cwd() : gitDir.replace(/\/(?:repo|\.git)\/?$/, ''));
  return roots.map((root) => {
    const prefix = root === '.' ? '' : `${root}/`;
    // Nested skills are skills of their own, not files of this one.
    const nested = roots.filter((r) => r !== root && r.startsWith(prefix));
    const mine = entries
      .filter((e) => e.file.startsWith(prefix) && !nested.some((n) => e.file.startsWith(`${n}/`)) && e.size <= FILE_LIMIT)
      .slice(0, FILES_PER_SKILL);
    const blobs = readBlobs(
      git,
      mine.map((e) => e.sha),
    );
    return {
      name: `${repo}/${root}`,
      files: mine.map((e, i) => ({ filename: e.file.slice(prefix.length), bytes: blobs[i]!, executable: e.mode === '100755' })),
    };
  });
}

/** Many blobs in one `git cat-file --batch`. */
function readBlobs(git: (args: string[], input?: string) => Buffer, shas: readonly string[]): Uint8Array[] {
  if (shas.length === 0) return [];
  const out = git(['cat-file', '--batch'], `${shas.join('\n')}\n`);
  const blobs: Uint8Array[] = [];
  let at = 0;
  for (let i = 0; i < shas.length; i++) {
    const header = out.indexOf(0x0a, at);
    const size = Number(out.subarray(at, header).toString('utf8').split(' ')[2]);
    blobs.push(new Uint8Array(out.subarray(header + 1, header + 1 + size)));
    at = header + 1 + size + 1;
  }
  return blobs;
}
