import { SKILL_FILE } from './filename.ts';

/**
 * Which folders of a repository are skills, one rule for every reader of a tree: the CLI's
 * `publish --all` walking a folder on disk and the GitHub import reading a commit's tree. A skill
 * folder holds a `SKILL.md`; everything under it is its files, so a `SKILL.md` further down is
 * one of them, not another skill. Folders are looked for at most {@link SKILL_FOLDER_DEPTH}
 * levels down (`skills/<group>/<skill>/SKILL.md` is 3), never in a dot-folder (`.git`, `.github`,
 * the install folders `.agents` and `.skills`) nor in `node_modules`.
 */

/**
 * Folders never published, whatever the ignore files say: VCS data, dependencies, installs. The
 * CLI leaves them out of a folder it publishes, and the web upload out of a folder or a `.zip`.
 */
export const ALWAYS_SKIPPED: ReadonlySet<string> = new Set(['.git', 'node_modules', '.agents', '.skills', '.hg', '.svn']);

/** How many levels below the root a skill folder may sit. */
export const SKILL_FOLDER_DEPTH = 6;

/** Whether the search for skill folders goes into a folder named `name`. */
export function searchesFolder(name: string): boolean {
  return !name.startsWith('.') && name !== 'node_modules';
}

/**
 * The skill folders among a tree's file paths (`/`-separated, relative to the root), in path
 * order; `''` is the root itself when it holds a `SKILL.md` (then it is the only one).
 */
export function skillFolderPaths(filePaths: Iterable<string>): string[] {
  const candidates = new Set<string>();
  for (const path of filePaths) {
    const parts = path.split('/');
    if (parts.at(-1) !== SKILL_FILE) continue;
    const folder = parts.slice(0, -1);
    if (folder.length > SKILL_FOLDER_DEPTH || !folder.every(searchesFolder)) continue;
    candidates.add(folder.join('/'));
  }
  const sorted = [...candidates].sort();
  // A folder inside another skill folder is part of that skill.
  return sorted.filter((folder) => !sorted.some((outer) => outer !== folder && (outer === '' || folder.startsWith(`${outer}/`))));
}
