import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * A git repository in a temporary folder, for the fake GitHub to serve: files written and
 * committed with `git` itself, links as real symbolic links (stored by git as mode 120000).
 */
export class GitRepo {
  readonly dir = mkdtempSync(join(tmpdir(), 'skillpress-repo-'));

  constructor() {
    this.git('init', '--quiet', '--initial-branch=main');
  }

  /** Writes `files` (path → text) and `links` (path → target), removes `removed`, and commits on the current branch; gives the commit. */
  commit(files: Record<string, string>, links: Record<string, string> = {}, removed: string[] = []): string {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(this.dir, path)), { recursive: true });
      writeFileSync(join(this.dir, path), text);
    }
    for (const [path, target] of Object.entries(links)) {
      mkdirSync(dirname(join(this.dir, path)), { recursive: true });
      rmSync(join(this.dir, path), { force: true });
      symlinkSync(target, join(this.dir, path));
    }
    for (const path of removed) rmSync(join(this.dir, path), { recursive: true, force: true });
    this.git('add', '--all');
    this.git('commit', '--quiet', '--allow-empty', '-m', 'change');
    return this.git('rev-parse', 'HEAD').trim();
  }

  /** Creates and switches to `branch`. */
  branch(branch: string): void {
    this.git('checkout', '--quiet', '-b', branch);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private git(...args: string[]): string {
    return execFileSync('git', ['-C', this.dir, '-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args]).toString();
  }
}
