import type * as z from 'zod/mini';
import { configFromEnv } from '#functions/platform/config';
import { getObjectBytes } from '#functions/content/s3';
import { createS3 } from '#functions/content/s3-client';
import type { CatalogDocument } from '#core/catalog';
import type { InstallsDocument } from '#core/public-installs';
import type { RegistryDocument } from '#core/registry-document';
import { mapLimit } from '#core/map-limit';
import {
  bundleDocumentSchema,
  catalogDocumentSchema,
  catalogIndexSchema,
  catalogPageSchema,
  installsDocumentSchema,
  registryDocumentSchema,
} from '#core/schemas';
import { CATALOG_INDEX_KEY, CATALOG_KEY, catalogPageKey, catalogPagePath, INSTALLS_KEY, keyForPath, registryKey, registryPath } from '#core/static-paths';

/**
 * Where the site build reads the catalog and the registry documents, named by SKILLPRESS_DATA:
 * - `s3://<static bucket>`: the bucket itself (the local runtime; S3_ENDPOINT names s3rver);
 * - `http(s)://<origin>`: a running Skillpress through its CDN (a CI build of production);
 * - unset: no skills (the pages for skills published later render in the browser).
 * Documents are parsed with the zod schemas the rebuild's output is typed by.
 */
export interface StaticSource {
  readonly description: string;
  catalog(): Promise<CatalogDocument | undefined>;
  registry(slug: string): Promise<RegistryDocument | undefined>;
  /** A free version's bundle, by its path in the registry document (`/bundles/<slug>/<v>.json`). */
  bundle(path: string): Promise<Bundle | undefined>;
  /** The public install counts; undefined until a site build has asked for them once. */
  installs(): Promise<InstallsDocument | undefined>;
}

export type Bundle = z.output<typeof bundleDocumentSchema>;

export function sourceFromEnv(env: NodeJS.ProcessEnv = process.env): StaticSource {
  const data = env.SKILLPRESS_DATA?.trim();
  if (!data) return emptySource;
  const url = new URL(data);
  if (url.protocol === 's3:') return bucketSource(url.hostname, env);
  if (url.protocol === 'http:' || url.protocol === 'https:') return httpSource(url.origin);
  throw new Error(`SKILLPRESS_DATA must be s3://<bucket> or an http(s) origin, not ${data}`);
}

const emptySource: StaticSource = {
  description: 'no data source (SKILLPRESS_DATA unset)',
  catalog: async () => undefined,
  registry: async () => undefined,
  bundle: async () => undefined,
  installs: async () => undefined,
};

function bucketSource(bucket: string, env: NodeJS.ProcessEnv): StaticSource {
  const s3 = createS3(configFromEnv(env));
  const read = async (key: string) => {
    const bytes = await getObjectBytes(s3, bucket, key);
    return bytes ? (JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown) : undefined;
  };
  return {
    description: `s3://${bucket}`,
    catalog: () => pagedCatalog((key) => read(key)),
    registry: async (slug) => parseOptional(registryDocumentSchema, listed(await read(registryKey(slug))), registryKey(slug)),
    bundle: async (path) => {
      const key = keyForPath(path);
      return key?.startsWith('bundles/') ? parseOptional(bundleDocumentSchema, await read(key), path) : undefined;
    },
    installs: async () => parseOptional(installsDocumentSchema, await read(INSTALLS_KEY), INSTALLS_KEY),
  };
}

function httpSource(origin: string): StaticSource {
  const read = async (path: string) => {
    const res = await fetch(origin + path, { headers: { accept: 'application/json' } });
    if (res.status === 404) return undefined;
    if (!res.ok) throw new Error(`GET ${origin}${path} answered ${res.status}`);
    return (await res.json()) as unknown;
  };
  return {
    description: origin,
    catalog: () => pagedCatalog((key) => read(`/${key}`)),
    registry: async (slug) => parseOptional(registryDocumentSchema, listed(await read(registryPath(slug))), registryPath(slug)),
    bundle: async (path) => parseOptional(bundleDocumentSchema, await read(path), path),
    installs: async () => parseOptional(installsDocumentSchema, await read(`/${INSTALLS_KEY}`), INSTALLS_KEY),
  };
}

/**
 * The catalog from its pages (docs/api.md §11.5), which a write keeps current, rather than the
 * whole `/.well-known/skills.json`, which production assembles from them once a minute; that
 * file only when the store has no pages yet. `read` takes an object key.
 */
async function pagedCatalog(read: (key: string) => Promise<unknown>): Promise<CatalogDocument | undefined> {
  const index = parseOptional(catalogIndexSchema, await read(CATALOG_INDEX_KEY), CATALOG_INDEX_KEY);
  if (!index) return parseOptional(catalogDocumentSchema, await read(CATALOG_KEY), CATALOG_KEY);
  const pages = await mapLimit(index.pages, 8, async ({ page }) => {
    const found = parseOptional(catalogPageSchema, await read(catalogPageKey(page)), catalogPagePath(page));
    if (!found) throw new Error(`${catalogPagePath(page)}, which ${CATALOG_INDEX_KEY} names, is missing`);
    return found.skills;
  });
  const skills = pages.flat();
  return { schemaVersion: 1, generatedAt: index.generatedAt, count: skills.length, skills };
}

/**
 * A quarantined skill's registry document says only who it is (docs/api.md §11.2): the site
 * builds no page for it, as if it were missing. The catalog leaves it out too, but a build may
 * read the catalog just before the rebuild takes it out.
 */
function listed(value: unknown): unknown {
  return (value as { status?: unknown } | undefined)?.status === 'quarantined' ? undefined : value;
}

function parseOptional<T>(
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: Error } },
  value: unknown,
  what: string,
): T | undefined {
  if (value === undefined) return undefined;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`${what} does not match its schema: ${parsed.error.message}`);
  return parsed.data;
}
