import semver from 'semver';
import { bundleIntegrity, decodeFile, type FileBytes } from '../core/bundle.ts';
import { byPrecedenceDesc } from '../core/semver-order.ts';
import { CliError } from './cli-error.ts';
import type { RegistryClient } from './registry-client.ts';
import type { SkillFolder } from './skill-folder.ts';

/**
 * Where a skill folder stands against the registry, for `version … patch|minor|major` and
 * `publish --all`: not published yet, the same content as the registry's newest version, or
 * changed since (and then the version a bump makes of the newest).
 */

export const BUMPS = ['patch', 'minor', 'major'] as const;
export type Bump = (typeof BUMPS)[number];

export const isBump = (value: string): value is Bump => (BUMPS as readonly string[]).includes(value);

export type Standing =
  | { state: 'new' }
  /** `newest` is the highest version published (yanked ones too: their numbers are taken). */
  | { state: 'unchanged' | 'changed'; id: string; newest: string }
  /** Published moments ago: its first version is run in the registry's sandbox, and the registry lists none until that ends. */
  | { state: 'being-observed' };

/**
 * The folder's standing. "The same content" is the same canonical bundle integrity as the newest
 * version, so a changed executable bit or a file sent as binary counts as a change, as it would
 * in the registry's own digests.
 */
export async function standingOf(client: RegistryClient, folder: SkillFolder): Promise<Standing> {
  let doc: Awaited<ReturnType<RegistryClient['versions']>>;
  try {
    doc = await client.versions(folder.slug);
  } catch (error) {
    if (error instanceof CliError && error.code === 'not_found') return { state: 'new' };
    if (error instanceof CliError && error.code === 'being_observed') return { state: 'being-observed' };
    throw error;
  }
  const [newest] = [...doc.versions].sort((a, b) => byPrecedenceDesc(a.version, b.version));
  if (!newest) return { state: 'new' };
  const same = newest.integrity === folderIntegrity(folder);
  return { state: same ? 'unchanged' : 'changed', id: doc.id, newest: newest.version };
}

/** `newest` bumped: `1.4.2` patch → `1.4.3`, minor → `1.5.0`, major → `2.0.0`; a prerelease `2.0.0-rc.1` patch → `2.0.0`. */
export function bumped(newest: string, bump: Bump): string {
  const next = semver.inc(newest, bump);
  if (!next) throw new CliError('bad_response', `the registry's newest version "${newest.slice(0, 64)}" is not semver`);
  return next;
}

/** The integrity the registry would give these files: `sha256-<base64>` of the canonical bundle. */
export function folderIntegrity(folder: Pick<SkillFolder, 'files'>): string {
  return bundleIntegrity(folder.files.map((file) => decodeFile(file) as FileBytes));
}
