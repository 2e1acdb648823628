import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CatalogEntry } from '#core/catalog';
import { mapLimit } from '#core/map-limit';
import type { RegistryDocument } from '#core/registry-document';
import type { StaticSource } from './source.ts';

/**
 * Every skill's registry document, for one build, read incrementally: a cache file kept between
 * builds holds each document with the catalog facts it was read for, so only skills whose
 * catalog entry changed (`updatedAt`, `currentVersion`) are read again. The rebuild after one
 * publish reads one document, not 10,000.
 *
 * (Astro's content layer offers the same through its data store, but that store loses a write
 * that overlaps another one, which at thousands of entries made rebuilds render stale data; a
 * file written once, atomically, at the end of loading cannot.)
 */
const CACHE_VERSION = 1;

interface CacheFile {
  version: number;
  entries: Record<string, { digest: string; doc: RegistryDocument }>;
}

export interface LoadedSkills {
  skills: RegistryDocument[];
  /** Registry documents read from the source (the rest came from the cache). */
  read: number;
  missing: number;
}

export async function loadSkills(source: StaticSource, cacheFile?: string): Promise<LoadedSkills> {
  const cached = cacheFile ? readCache(cacheFile) : {};
  const catalog = await source.catalog();
  const entries: CacheFile['entries'] = {};
  const stale: CatalogEntry[] = [];
  for (const entry of catalog?.skills ?? []) {
    const hit = cached[entry.slug];
    if (hit?.digest === digest(entry)) entries[entry.slug] = hit;
    else stale.push(entry);
  }
  let missing = 0;
  await mapLimit(stale, 16, async (entry) => {
    const doc = await source.registry(entry.slug);
    if (doc) entries[entry.slug] = { digest: digest(entry), doc };
    else missing += 1;
  });
  if (cacheFile) writeCache(cacheFile, { version: CACHE_VERSION, entries });
  const skills = Object.values(entries).map((e) => e.doc);
  return { skills, read: stale.length - missing, missing };
}

/** What the catalog says about a skill that changes whenever its registry document does. */
function digest(entry: CatalogEntry): string {
  return `${entry.updatedAt}|${entry.currentVersion}`;
}

function readCache(file: string): CacheFile['entries'] {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as CacheFile;
    return parsed.version === CACHE_VERSION ? parsed.entries : {};
  } catch {
    return {}; // no cache yet, or a damaged one: everything is read again
  }
}

function writeCache(file: string, cache: CacheFile): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, JSON.stringify(cache));
  renameSync(temporary, file);
}
