import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CatalogEntry } from '#core/catalog';
import { mapLimit } from '#core/map-limit';
import type { RegistryDocument } from '#core/registry-document';
import { SKILL_FILE } from '#core/filename';
import type { RenderedSkillFile } from '../lib/skill-file-rendering.ts';
import type { StaticSource } from './source.ts';

/**
 * Every skill's registry document, for one build, read incrementally: a cache file kept between
 * builds holds each document with the catalog facts it was read for, so only skills whose
 * catalog entry changed (`updatedAt`, `currentVersion`) are read again. The rebuild after one
 * publish reads one document, not 10,000. A free skill's `SKILL.md` comes with it, from the
 * current version's bundle (immutable, so it changes only with `currentVersion`), already
 * rendered: sanitising costs milliseconds a file (DOMPurify over jsdom), so each is rendered once,
 * and again only when the renderer's version changes.
 *
 * (Astro's content layer offers the same through its data store, but that store loses a write
 * that overlaps another one, which at thousands of entries made rebuilds render stale data; a
 * file written once, atomically, at the end of loading cannot.)
 */
const CACHE_VERSION = 2;

interface CacheEntry {
  digest: string;
  doc: RegistryDocument;
  /**
   * A free skill's `SKILL.md`, rendered (none when the bundle has no text one); paid skills have
   * none in any static file.
   */
  skillFile?: { renderer: string; rendered?: RenderedSkillFile };
}

/** Renders a `SKILL.md`; `version` changes whenever the output for the same text would. */
export interface SkillFileRenderer {
  version: string;
  render(source: string): RenderedSkillFile;
}

interface CacheFile {
  version: number;
  entries: Record<string, CacheEntry>;
}

export interface LoadedSkills {
  skills: RegistryDocument[];
  /** `SKILL.md` rendered, by slug, for the free skills whose bundle holds it as text. */
  skillFiles: Map<string, RenderedSkillFile>;
  /** Registry documents read from the source (the rest came from the cache). */
  read: number;
  missing: number;
}

export async function loadSkills(source: StaticSource, cacheFile?: string, renderer?: SkillFileRenderer): Promise<LoadedSkills> {
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
  // Read for new documents, and for cached ones a renderer of another version made.
  const unrendered = renderer ? Object.values(entries).filter((e) => e.doc.delivery.bundle && e.skillFile?.renderer !== renderer.version) : [];
  await mapLimit(unrendered, 16, async (entry) => {
    const text = await readSkillFile(source, entry.doc.delivery.bundle!);
    entry.skillFile = { renderer: renderer!.version, ...(text === undefined ? {} : { rendered: renderer!.render(text) }) };
  });
  if (cacheFile) writeCache(cacheFile, { version: CACHE_VERSION, entries });
  const skills = Object.values(entries).map((e) => e.doc);
  const skillFiles = new Map(Object.values(entries).flatMap((e) => (e.skillFile?.rendered ? [[e.doc.slug, e.skillFile.rendered] as const] : [])));
  return { skills, skillFiles, read: stale.length - missing, missing };
}

/** The `SKILL.md` of a bundle, when it is text (a base64 one is not a readable page). */
async function readSkillFile(source: StaticSource, bundlePath: string): Promise<string | undefined> {
  const file = (await source.bundle(bundlePath))?.files.find((f) => f.filename === SKILL_FILE);
  return file && file.encoding !== 'base64' ? file.content : undefined;
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
