import type { QuarantinedDocument, RegistryDocument, VersionsDocument } from '#core/registry-document';
import { registryPath } from '#core/static-paths';

/**
 * The static documents, read in the browser from the same CDN paths the CLI uses. They are the
 * rebuild's own output on this origin, so they are trusted as typed (the build validates them
 * with the zod schemas; the browser does not ship zod).
 */
/** A skill's registry document; a quarantined skill's says only who it is and `status`. */
export async function fetchRegistry(slug: string): Promise<RegistryDocument | QuarantinedDocument | undefined> {
  return getJson<RegistryDocument | QuarantinedDocument>(registryPath(slug), 'no-cache');
}

export async function fetchVersions(slug: string): Promise<VersionsDocument | undefined> {
  return getJson<VersionsDocument>(`${registryPath(slug)}/versions`, 'no-cache');
}

/**
 * A JSON document, or undefined for a 404. `no-cache` revalidates with the CDN (a 304 when
 * nothing changed) instead of trusting the browser's copy for the file's max-age: these reads
 * exist to show what changed since the site build.
 */
export async function getJson<T>(path: string, cache: RequestCache = 'default'): Promise<T | undefined> {
  const res = await fetch(path, { headers: { accept: 'application/json' }, cache });
  if (!res.ok) {
    // An unread body keeps the request open in Chromium (the page never finished loading).
    await res.body?.cancel();
    if (res.status === 404) return undefined;
    throw new Error(`${path} answered ${res.status}`);
  }
  return (await res.json()) as T;
}
