import type { WireFile } from '#core/bundle';
import { ALWAYS_SKIPPED, skillFolderPaths } from '#core/skill-folders';

/**
 * What the dashboard's web upload sends of a folder or a `.zip` the author dropped or picked: the
 * files of the one skill folder in it (the folder holding its `SKILL.md`), named from that folder,
 * as `skillpress publish` would send the folder. Pure: paths and bytes in, the publish's files out.
 */

/** A file the browser read: its path inside what was dropped or picked (`/`-separated), and its bytes. */
export interface PickedFile {
  path: string;
  bytes: Uint8Array;
}

export type UploadedFolder = { files: WireFile[]; folder: string } | { problem: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The skill folder among `picked` and its files. A browser reads no file modes: a file that
 * starts with `#!` is sent as executable, as the script it is. Text stays text; anything that is
 * not UTF-8, or holds a NUL byte, travels as base64, as the CLI sends it.
 */
export function uploadedFolder(picked: readonly PickedFile[]): UploadedFolder {
  const kept = picked.filter((file) => !file.path.endsWith('/') && !file.path.split('/').some((part) => ALWAYS_SKIPPED.has(part)));
  const folders = skillFolderPaths(kept.map((file) => file.path));
  if (folders.length === 0) return { problem: 'There is no SKILL.md in it: a skill is a folder with a SKILL.md at its root.' };
  if (folders.length > 1)
    return {
      problem: `It holds ${folders.length} skills (${folders.slice(0, 3).join(', ')}${folders.length > 3 ? ', …' : ''}): upload one skill folder at a time.`,
    };
  const folder = folders[0]!;
  const prefix = folder === '' ? '' : `${folder}/`;
  const files = kept.filter((file) => file.path.startsWith(prefix)).map((file) => wireFile(file.path.slice(prefix.length), file.bytes));
  return { files, folder };
}

function wireFile(filename: string, bytes: Uint8Array): WireFile {
  const executable = bytes[0] === 0x23 && bytes[1] === 0x21 ? { executable: true as const } : {};
  if (!bytes.includes(0)) {
    try {
      return { filename, content: utf8.decode(bytes), ...executable };
    } catch {
      // not UTF-8: sent as base64 below
    }
  }
  return { filename, content: base64(bytes), encoding: 'base64', ...executable };
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
