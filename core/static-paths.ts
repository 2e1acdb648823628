/**
 * The static tree (DESIGN.md §5): which object key serves which public path, and the headers of
 * each kind of object. The rebuild writes with these headers and the CDN (CloudFront, or the
 * local runtime) serves them as stored.
 */

export const CATALOG_KEY = '.well-known/skills.json';
export const DISCOVERY_INDEX_KEY = '.well-known/agent-skills/index.json';
export const DISCOVERY_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

export const registryKey = (slug: string) => `registry/${slug}.json`;
export const versionsKey = (slug: string) => `registry/${slug}/versions.json`;
export const bundleKey = (slug: string, version: string) => `bundles/${slug}/${version}.json`;
export const archiveKey = (slug: string, version: string) => `.well-known/agent-skills/${slug}/${version}.tar.gz`;

export const registryPath = (slug: string) => `/api/registry/${slug}`;
export const bundlePath = (slug: string, version: string) => `/${bundleKey(slug, version)}`;
export const archivePath = (slug: string, version: string) => `/${archiveKey(slug, version)}`;

const REGISTRY_PATH = /^\/api\/registry\/([a-z0-9-]{1,64})(\/versions)?\/?$/;

/**
 * The object key behind a public path, or undefined when the path is not part of the static
 * tree. Paths are matched exactly; anything with `..` or odd characters never maps.
 */
export function keyForPath(path: string): string | undefined {
  const registry = REGISTRY_PATH.exec(path);
  if (registry) return registry[2] ? versionsKey(registry[1]!) : registryKey(registry[1]!);
  if (path.includes('..') || path.includes('//') || !/^[A-Za-z0-9._~/+-]+$/.test(path)) return undefined;
  if (path === `/${CATALOG_KEY}` || path.startsWith('/.well-known/agent-skills/') || path.startsWith('/bundles/')) return path.slice(1);
  return undefined;
}

export interface ObjectHeaders {
  contentType: string;
  cacheControl: string;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

export function headersForKey(key: string): ObjectHeaders {
  if (key.startsWith('registry/')) return { contentType: 'application/json', cacheControl: 'public, max-age=60, s-maxage=300, stale-while-revalidate=60' };
  if (key.startsWith('bundles/')) return { contentType: 'application/json', cacheControl: IMMUTABLE };
  if (key.endsWith('.tar.gz')) return { contentType: 'application/gzip', cacheControl: IMMUTABLE };
  if (key.endsWith('.json')) return { contentType: 'application/json', cacheControl: 'public, max-age=300' };
  if (key.endsWith('.html')) return { contentType: 'text/html; charset=utf-8', cacheControl: 'public, max-age=300' };
  return { contentType: 'application/octet-stream', cacheControl: 'public, max-age=300' };
}
