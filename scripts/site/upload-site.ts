import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { mapLimit } from '#core/map-limit';
import { SITE_MANIFEST_KEY } from '#core/static-paths';
import type { StaticStore } from '#functions/content/static-store';

/**
 * Copies a site build into the static bucket at the keys the CDN serves it from (the folder's
 * layout is the bucket's: `skills/<slug>/index.html`, `_astro/*`), each with the Content-Type
 * and Cache-Control of its kind. Only files whose bytes changed since the last upload are
 * written: after one write, a 10,000-skill site sends a handful of pages, not all of them.
 * Assets go first and pages after, so no page is ever served before what it references.
 * Nothing is deleted: old hashed assets stay for pages still cached by browsers and the CDN.
 */
export interface SiteManifest {
  uploadedAt: string;
  sourceHash: string;
  /** key → sha256 (hex) of every file of the last upload. */
  files: Record<string, string>;
}

export interface UploadResult {
  files: number;
  uploaded: number;
  ms: number;
}

export async function readSiteManifest(store: StaticStore): Promise<SiteManifest | undefined> {
  const bytes = await store.get(SITE_MANIFEST_KEY).catch(() => undefined);
  if (!bytes) return undefined;
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8')) as SiteManifest;
  } catch {
    return undefined; // a damaged manifest only means everything is uploaded again
  }
}

export async function uploadSite(store: StaticStore, dir: string, options: { sourceHash: string; now?: Date; force?: boolean }): Promise<UploadResult> {
  const started = performance.now();
  const previous = options.force ? undefined : await readSiteManifest(store);
  const files = listFiles(dir).map((path) => {
    const key = relative(dir, path).split(sep).join('/');
    return { key, path, sha256: createHash('sha256').update(readFileSync(path)).digest('hex') };
  });
  const changed = files.filter((f) => previous?.files[f.key] !== f.sha256);
  const isPage = (key: string) => key.endsWith('.html');
  for (const batch of [changed.filter((f) => !isPage(f.key)), changed.filter((f) => isPage(f.key))]) {
    await mapLimit(batch, 16, (f) => store.put(f.key, readFileSync(f.path)));
  }
  const manifest: SiteManifest = {
    uploadedAt: (options.now ?? new Date()).toISOString(),
    sourceHash: options.sourceHash,
    files: Object.fromEntries(files.map((f) => [f.key, f.sha256])),
  };
  await store.put(SITE_MANIFEST_KEY, JSON.stringify(manifest));
  return { files: files.length, uploaded: changed.length, ms: Math.round(performance.now() - started) };
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}
