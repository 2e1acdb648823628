/**
 * The static tree (docs/api.md §11): which object key serves which public path, and the headers of
 * each kind of object. The rebuild writes with these headers and the CDN (CloudFront, or the
 * local runtime) serves them as stored.
 */

export const CATALOG_KEY = '.well-known/skills.json';
export const DISCOVERY_INDEX_KEY = '.well-known/agent-skills/index.json';
/** The same index at the path of the discovery spec's v0.1, where older clients look first. */
export const LEGACY_DISCOVERY_INDEX_KEY = '.well-known/skills/index.json';
/** Public install counts of every listed skill (docs/api.md §11.8), rewritten before each site build. */
export const INSTALLS_KEY = '.well-known/skills-installs.json';
/** The search index (core/search/index-files.ts): its head, then its skills and text shards. */
export const SEARCH_HEAD_KEY = '.well-known/skillpress/search.json';
/** The registry's public signing keys (core/version-signature.ts), written by the rebuild. */
export const SIGNING_KEYS_KEY = '.well-known/skillpress/keys.json';
export const skillsShardKey = (n: number) => `.well-known/skillpress/search/skills-${n}.json`;
export const textShardKey = (n: number) => `.well-known/skillpress/search/text-${n}.json`;
export const DISCOVERY_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';
/** The catalog in pages (docs/api.md §11.5): the index naming every page, and each page. */
export const CATALOG_INDEX_KEY = 'catalog/index.json';
export const catalogPageKey = (page: number) => `catalog/page-${page}.json`;
export const catalogPagePath = (page: number) => `/${catalogPageKey(page)}`;
const CATALOG_PAGE_PATH = /^\/catalog\/(?:index|page-(?:0|[1-9][0-9]{0,8}))\.json$/;

/** Encodings a large document is stored in beside itself, served by Accept-Encoding. */
export type StoredEncoding = 'br' | 'gzip';
/** The documents stored pre-compressed: too large to compress per request (CloudFront stops at 10 MB). */
export const PRECOMPRESSED_KEYS: readonly string[] = [CATALOG_KEY];
/** The object holding `key` compressed with `encoding`. */
export const precompressedKey = (key: string, encoding: StoredEncoding) => `${key}.${encoding === 'br' ? 'br' : 'gz'}`;

/**
 * The paths under `/.well-known/` that the API answers, not the static bucket: ClawHub's discovery
 * documents name the origin that serves them, which only a request knows. Its clients ask for the
 * current name first, then the one before it.
 */
export const CLAWHUB_DISCOVERY_PATHS = ['/.well-known/clawhub.json', '/.well-known/clawdhub.json'] as const;

export const registryKey = (slug: string) => `registry/${slug}.json`;
export const versionsKey = (slug: string) => `registry/${slug}/versions.json`;
export const bundleKey = (slug: string, version: string) => `bundles/${slug}/${version}.json`;
export const archiveKey = (slug: string, version: string) => `.well-known/agent-skills/${slug}/${version}.tar.gz`;
/** The `SKILL.md` of a version that has no other file: the discovery index lists it instead of an archive. */
export const skillMdKey = (slug: string, version: string) => `.well-known/agent-skills/${slug}/${version}/SKILL.md`;
/** A free skill's current `SKILL.md`, without a version: it changes with each release. */
export const currentSkillMdKey = (slug: string) => `.well-known/agent-skills/${slug}/SKILL.md`;
/**
 * One skill's discovery index, under its page, so a skill page's address works with `skills add`
 * (which looks for the index under the URL it is given before the site's root).
 */
export const scopedDiscoveryKey = (slug: string) => `skills/${slug}/.well-known/agent-skills/index.json`;
/**
 * What a skill's own index adds to the query of the artifact it names (the same file the shared
 * index names): a download that carries it was asked for that skill alone, and counts as its
 * install (core/cdn-log.ts). Static hosts ignore the query.
 */
export const SKILL_INDEX_MARK = 'via=skill-index';
/**
 * What `skillpress install` adds to the query of a bundle it downloads to install it: such a
 * download counts as the install of its skill (core/cdn-log.ts), once per request, as a delivery
 * would. A bundle read without it (a mirror, a browser, `info`) counts nothing. Static hosts
 * ignore the query.
 */
export const BUNDLE_INSTALL_MARK = 'via=install';

/** The `skillpress` package, whose default registry is the origin that serves it (scripts/cli-package.ts). */
export const cliPackageKey = 'cli/skillpress.tgz';
/** The same package at one version: never rewritten but by a new release. */
export const cliPackageVersionKey = (version: string) => `cli/skillpress-${version}.tgz`;
const CLI_PACKAGE_PATH = /^\/cli\/skillpress(-\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)?\.tgz$/;

export const registryPath = (slug: string) => `/api/registry/${slug}`;
export const bundlePath = (slug: string, version: string) => `/${bundleKey(slug, version)}`;
export const archivePath = (slug: string, version: string) => `/${archiveKey(slug, version)}`;
export const skillMdPath = (slug: string, version: string) => `/${skillMdKey(slug, version)}`;

const REGISTRY_PATH = /^\/api\/registry\/([a-z0-9-]{1,64})(\/versions)?\/?$/;
/** The search index's files (core/search/index-files.ts). */
const SEARCH_PATH = /^\/\.well-known\/skillpress\/search(\.json|\/(skills|text)-\d{1,6}\.json)$/;

/**
 * The object key behind a public path, or undefined when the path is not part of the static
 * tree. Paths are matched exactly; anything with `..` or odd characters never maps.
 */
export function keyForPath(path: string): string | undefined {
  const registry = REGISTRY_PATH.exec(path);
  if (registry) return registry[2] ? versionsKey(registry[1]!) : registryKey(registry[1]!);
  if (path.includes('..') || path.includes('//') || !/^[A-Za-z0-9._~/+-]+$/.test(path)) return undefined;
  if (
    path === `/${CATALOG_KEY}` ||
    path === `/${INSTALLS_KEY}` ||
    path === `/${SIGNING_KEYS_KEY}` ||
    path === `/${LEGACY_DISCOVERY_INDEX_KEY}` ||
    CATALOG_PAGE_PATH.test(path) ||
    path.startsWith('/.well-known/agent-skills/') ||
    path.startsWith('/bundles/') ||
    SEARCH_PATH.test(path)
  )
    return path.slice(1);
  const scoped = /^\/skills\/([a-z0-9-]{1,64})\/\.well-known\/agent-skills\/index\.json$/.exec(path);
  if (scoped) return scopedDiscoveryKey(scoped[1]!);
  if (CLI_PACKAGE_PATH.test(path)) return path.slice(1);
  return undefined;
}

/**
 * The site (Astro's output) lives at the bucket's root beside the data tree: `/` is
 * `index.html`, `/skills/<slug>/` is `skills/<slug>/index.html`, `/_astro/*` are its hashed
 * assets. These prefixes belong to the data tree or the site builder, never to a page.
 */
const NOT_SITE = /^\/(?:api|registry|bundles|catalog|\.well-known|_site|cli)(?:\/|$)/;

/** Served in place of a skill page the last site build did not make (it renders in the browser). */
export const SKILL_FALLBACK_KEY = 'skills/_/index.html';
/**
 * The fallback page's `<noscript>` link to the skill's registry document, as built: the CDN,
 * which knows the slug from the path it serves the page at, puts `registryPath(slug)` in its place.
 */
export const REGISTRY_LINK = '/api/registry/';
/** Served in place of an author page the last site build did not make (it lists their skills in the browser). */
export const AUTHOR_FALLBACK_KEY = 'authors/_/index.html';
/** Served, with status 404, for any other site path that has no page. */
export const NOT_FOUND_KEY = '404.html';
/** What the last site upload wrote: its files' hashes and the sources it was built from. */
export const SITE_MANIFEST_KEY = '_site/manifest.json';

/**
 * A page served in place of a site page the last build did not make: `key` with `status`, when
 * `key` exists and so does `requires`, if named. `slug` names the skill of a fallback page (see
 * {@link fallbackPageFor}).
 */
export interface PageInPlace {
  key: string;
  status: 200 | 404;
  requires?: string;
  slug?: string;
}

/**
 * What the CDN serves for a site path that has no page, in order, the first that exists winning:
 * for `/skills/<slug>/` the skill fallback page, only when the registry has that skill (its
 * registry document exists); for `/authors/<login>/` the author fallback page; otherwise the
 * site's 404 page with status 404. The local CDN and production (CloudFront's failover to the
 * site-pages Lambda) both follow it.
 */
export function pagesInPlaceOf(path: string): PageInPlace[] {
  const slug = skillSlugOfPath(path);
  return [
    ...(slug ? [{ key: SKILL_FALLBACK_KEY, status: 200 as const, requires: registryKey(slug), slug }] : []),
    ...(authorLoginOfPath(path) ? [{ key: AUTHOR_FALLBACK_KEY, status: 200 as const }] : []),
    { key: NOT_FOUND_KEY, status: 404 },
  ];
}

/**
 * The skill fallback page served for `slug`: its `<noscript>` link names the skill's registry
 * document, which the page's script would have drawn (a slug is letters, digits and hyphens:
 * nothing to escape).
 */
export function fallbackPageFor(html: string, slug: string): string {
  return html.replace(`href="${REGISTRY_LINK}"`, `href="${registryPath(slug)}"`);
}

export const skillPagePath = (slug: string) => `/skills/${slug}/`;
export const categoryPagePath = (category: string) => `/categories/${category}/`;
export const authorPagePath = (login: string) => `/authors/${login}/`;

/**
 * The site object behind a public path (folders map to their `index.html`, as CloudFront's
 * viewer function does), or undefined for paths of the data tree and odd paths.
 */
export function siteKeyForPath(path: string): string | undefined {
  if (path.includes('..') || path.includes('//') || !/^\/[A-Za-z0-9._~/+-]*$/.test(path) || NOT_SITE.test(path)) return undefined;
  if (path.endsWith('/')) return `${path.slice(1)}index.html`;
  const last = path.slice(path.lastIndexOf('/') + 1);
  return last.includes('.') ? path.slice(1) : `${path.slice(1)}/index.html`;
}

/** The login of an author page path (`/authors/<login>/`; GitHub's login alphabet), else undefined. */
export function authorLoginOfPath(path: string): string | undefined {
  return /^\/authors\/([A-Za-z0-9-]{1,39})\/?$/.exec(path)?.[1];
}

/** The slug of a skill page path (`/skills/<slug>/`), else undefined. */
export function skillSlugOfPath(path: string): string | undefined {
  return /^\/skills\/([a-z0-9-]{1,64})\/?$/.exec(path)?.[1];
}

export interface ObjectHeaders {
  contentType: string;
  cacheControl: string;
  /** Set on the pre-compressed copies of {@link PRECOMPRESSED_KEYS}: the headers of the document, encoded. */
  contentEncoding?: StoredEncoding;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';
const SITE = 'public, max-age=300';

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  json: 'application/json',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  ico: 'image/x-icon',
  woff2: 'font/woff2',
  txt: 'text/plain; charset=utf-8',
  xml: 'application/xml',
  webmanifest: 'application/manifest+json',
  gz: 'application/gzip',
  tgz: 'application/gzip',
  md: 'text/markdown; charset=utf-8',
};

/** The media type of a file by its name's extension, or null when the name says none this list knows. */
export function contentTypeOf(filename: string): string | null {
  const name = filename.slice(filename.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? (CONTENT_TYPES[name.slice(dot + 1).toLowerCase()] ?? null) : null;
}

/** How old a registry document a client may be given: its Cache-Control's max-age (the CDN's s-maxage is longer). */
export const REGISTRY_MAX_AGE_SECONDS = 60;

export function headersForKey(key: string): ObjectHeaders {
  for (const document of PRECOMPRESSED_KEYS) {
    for (const encoding of ['br', 'gzip'] as const)
      if (key === precompressedKey(document, encoding)) return { ...headersForKey(document), contentEncoding: encoding };
  }
  if (key.startsWith('registry/'))
    return {
      contentType: 'application/json',
      cacheControl: `public, max-age=${REGISTRY_MAX_AGE_SECONDS}, s-maxage=300, stale-while-revalidate=${REGISTRY_MAX_AGE_SECONDS}`,
    };
  const extension = key.slice(key.lastIndexOf('.') + 1).toLowerCase();
  const contentType = CONTENT_TYPES[extension] ?? 'application/octet-stream';
  // Bundles, archives and a version's lone SKILL.md never change; Astro's assets carry their content hash in their names.
  // A version's lone SKILL.md (`<slug>/<version>/SKILL.md`), not the current one (`<slug>/SKILL.md`).
  const loneSkillMd = key.startsWith('.well-known/agent-skills/') && key.endsWith('/SKILL.md') && key.split('/').length === 5;
  // A versioned CLI package changes only with a release.
  const versionedCli = key.startsWith('cli/skillpress-');
  if (key.startsWith('bundles/') || key.endsWith('.tar.gz') || loneSkillMd || versionedCli || key.startsWith('_astro/'))
    return { contentType, cacheControl: IMMUTABLE };
  return { contentType, cacheControl: SITE };
}
