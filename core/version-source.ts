import * as z from 'zod/mini';
import { lazySchema } from './lazy-schema.ts';

/**
 * Where an imported version's files were read (docs/api.md §7.16): the GitHub repository, the
 * commit and the skill folder's path in it, recorded by the import that published it. It says
 * where the bytes came from as the registry read them; it is not provenance (a signed claim of
 * a CI run, core/provenance.ts), and the registry's signature does not cover it.
 */
export interface VersionSource {
  /** `owner/name`, as GitHub names the repository. */
  repo: string;
  /** The full SHA of the commit the files were read at. */
  commit: string;
  /** The skill folder in the repository, `''` for its root. */
  path: string;
}

/** The schema of a version's source: the stored version and the registry documents. zod/mini, as the store's item schemas are. */
export const versionSourceSchema = lazySchema(
  () => z.object({ repo: z.string(), commit: z.string(), path: z.string() }) satisfies z.ZodMiniType<VersionSource>,
);

/** "imported from owner/repo@abc1234 skills/pdf": the line the site shows. */
export function sourceLine(source: VersionSource): string {
  return `imported from ${source.repo}@${source.commit.slice(0, 7)}${source.path ? ` ${source.path}` : ''}`;
}

/** The folder on GitHub at that commit. */
export function sourceUrl(source: VersionSource): string {
  const path = source.path ? `/${source.path.split('/').map(encodeURIComponent).join('/')}` : '';
  return `https://github.com/${source.repo}/tree/${source.commit}${path}`;
}
