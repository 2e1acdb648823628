import inc from 'semver/functions/inc.js';
import gt from 'semver/functions/gt.js';
import valid from 'semver/functions/valid.js';

/**
 * The pure rules of a GitHub import (docs/api.md §7.16): which entries of a commit's tree make up
 * one skill folder's files, with the links inside it followed, and which version an imported
 * folder whose files changed is published at.
 */

/** An entry of a commit's recursive tree, as GitHub's git trees API lists it. */
export interface TreeEntry {
  path: string;
  /** `100644` a file, `100755` an executable one, `120000` a symbolic link, `040000` a folder, `160000` a submodule. */
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  size?: number;
}

/** A file of a skill folder: its name in the skill, and the blob that holds its bytes. */
export interface FolderFile {
  filename: string;
  sha: string;
  size: number;
  executable: boolean;
}

export type FolderFiles = { files: FolderFile[] } | { refusedLinks: string[] };

const LINK_MODE = '120000';
/** A link to a link is followed this many times at most: a cycle ends as a refused link. */
const MAX_LINK_HOPS = 8;

export const isLink = (entry: TreeEntry): boolean => entry.type === 'blob' && entry.mode === LINK_MODE;

/**
 * The files of the skill folder `folder` (`''` for the root): every file under it, and for each
 * link under it what it points to, a file or a folder, as long as that is inside the folder too.
 * `linkTargets` holds each link's target as stored in its blob. A link pointing outside the
 * folder, or to nothing, refuses the folder: its paths (relative to the folder) are given.
 * Submodules are not part of a skill and are left out.
 */
export function folderFiles(entries: readonly TreeEntry[], folder: string, linkTargets: ReadonlyMap<string, string>): FolderFiles {
  const prefix = folder === '' ? '' : `${folder}/`;
  const byPath = new Map(entries.map((e) => [e.path, e]));
  const inside = (path: string) => prefix === '' || path.startsWith(prefix);
  const files = new Map<string, FolderFile>();
  const refused: string[] = [];
  const asFile = (filename: string, entry: TreeEntry): FolderFile => ({ filename, sha: entry.sha, size: entry.size ?? 0, executable: entry.mode === '100755' });

  for (const entry of entries) {
    if (!inside(entry.path) || entry.type !== 'blob') continue;
    const name = entry.path.slice(prefix.length);
    if (!isLink(entry)) {
      files.set(name, asFile(name, entry));
      continue;
    }
    const target = resolveLink(entry.path, byPath, linkTargets);
    if (target === undefined || !inside(target.path)) {
      refused.push(name);
      continue;
    }
    if (target.type === 'blob') files.set(name, asFile(name, target));
    else {
      // A link to a folder brings that folder's files under the link's name.
      const under = `${target.path}/`;
      for (const e of entries) {
        if (e.type === 'blob' && !isLink(e) && e.path.startsWith(under)) {
          const filename = `${name}/${e.path.slice(under.length)}`;
          files.set(filename, asFile(filename, e));
        }
      }
    }
  }
  if (refused.length > 0) return { refusedLinks: refused.sort() };
  return { files: [...files.values()].sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0)) };
}

/** What a link ends at after following links (a file or a folder of the tree), or undefined for nothing or a cycle. */
function resolveLink(path: string, byPath: ReadonlyMap<string, TreeEntry>, linkTargets: ReadonlyMap<string, string>): TreeEntry | undefined {
  let current = path;
  for (let hop = 0; hop < MAX_LINK_HOPS; hop++) {
    const target = linkTargets.get(current);
    if (target === undefined) return undefined;
    const resolved = joinPath(current.split('/').slice(0, -1), target);
    if (resolved === undefined) return undefined;
    const entry = byPath.get(resolved);
    if (!entry || entry.type === 'commit') return undefined;
    if (!isLink(entry)) return entry;
    current = resolved;
  }
  return undefined;
}

/** `target` read from the folder `base` (segments), normalised; undefined for an absolute target or one above the repository's root. */
function joinPath(base: string[], target: string): string | undefined {
  if (target.startsWith('/') || target === '') return undefined;
  const parts = [...base];
  for (const part of target.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join('/');
}

/**
 * The version a changed folder is published at, by an import or as the web upload suggests: the
 * version its `SKILL.md` declares in `metadata.version` when that is above the current version,
 * else the current version with its patch bumped (a folder whose declared version was not bumped
 * with its content gets the next patch, rather than a refusal as `version_exists`).
 */
export function suggestedVersion(current: string, metadata: unknown): string {
  const declared = typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>).version : undefined;
  const trimmed = typeof declared === 'string' ? declared.trim() : '';
  return valid(trimmed) && gt(trimmed, current) ? trimmed : (inc(current, 'patch') ?? current);
}
