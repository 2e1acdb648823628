import { createHash } from 'node:crypto';
import { bundleBytes, type FileBytes, sha256Hex } from '#core/bundle';
import { canonicalJson } from '#core/canonical-json';
import { mapLimit } from '#core/map-limit';
import {
  type CatalogDocument,
  type CatalogEntry,
  catalogDocument,
  catalogEntry,
  type DiscoveryDocument,
  type DiscoveryEntry,
  discoveryDocument,
  discoveryEntry,
} from '#core/catalog';
import { registryDocument, versionsDocument } from '#core/registry-document';
import { skillArchive } from '#core/skill-archive';
import { archiveKey, bundleKey, CATALOG_KEY, DISCOVERY_INDEX_KEY, registryKey, versionsKey } from '#core/static-paths';
import { getBlob } from '../content/blobs.ts';
import type { Deps } from '../deps.ts';
import { withLock } from '../store/locks.ts';
import type { VersionItem } from '../store/skills.ts';
import { scanSkillStates } from './scan.ts';
import { loadSkillState, repairCurrentVersion, type SkillState } from './skill-state.ts';

/**
 * The rebuild: turns what DynamoDB and the content bucket hold into the static files of
 * DESIGN.md §5. `rebuild(ids)` touches only the named skills' files plus the two shared indexes,
 * so its cost does not grow with the number of skills (apart from serialising the catalog).
 * Everything it writes is derived, so running it again is always safe.
 */
export class Rebuilder {
  /** The last catalog and index this process wrote, to patch without re-reading them. */
  private catalog?: { entries: Map<string, CatalogEntry>; etag?: string };
  private discovery?: { entries: Map<string, DiscoveryEntry>; bytes: string };

  constructor(private readonly deps: Deps) {}

  /** Rebuilds the files of `skillIds` and their entries in the catalog and discovery index. */
  async rebuild(skillIds: Iterable<string>): Promise<void> {
    const ids = [...new Set(skillIds)];
    const started = performance.now();
    const states = (await mapLimit(ids, 8, (id) => loadSkillState(this.deps.db, id))).filter((s): s is SkillState => s !== undefined);
    if (states.length === 0) return;
    const loaded = performance.now();
    await mapLimit(states, 8, (state) => this.writeSkillFiles(state));
    const filesWritten = performance.now();
    await withLock(this.deps.db, 'static-indexes', async () => {
      const catalog = await this.loadCatalog();
      const discovery = await this.loadDiscovery();
      for (const state of states) {
        catalog.set(state.skill.slug, catalogEntry(state.skill, state.skill.currentVersion));
        await this.patchDiscovery(discovery.entries, state);
      }
      await this.writeIndexes(catalog, discovery.entries, discovery.stored);
    });
    const ms = (a: number, b: number) => Math.round(b - a);
    this.deps.log.debug('rebuilt', { skills: states.length, loadMs: ms(started, loaded), filesMs: ms(loaded, filesWritten), indexesMs: ms(filesWritten, performance.now()) });
  }

  /** Regenerates every skill's files and both indexes from DynamoDB: the repair path. */
  async rebuildAll(): Promise<{ skills: number; written: number }> {
    const states = await this.scanAll();
    let written = 0;
    const existing = await this.deps.staticStore.list('');
    const putIfChanged = async (key: string, body: string) => {
      if (existing.get(key) === md5(body)) return;
      await this.deps.staticStore.put(key, body);
      written += 1;
    };
    await mapLimit(states, 32, async (state) => {
      written += await this.writeBundles(state, existing);
      await putIfChanged(registryKey(state.skill.slug), canonicalJson(registryDocument(state.skill, state.versions)));
      await putIfChanged(versionsKey(state.skill.slug), canonicalJson(versionsDocument(state.skill, state.versions)));
    });
    await withLock(this.deps.db, 'static-indexes', async () => {
      const previous = (await this.readDiscovery()).entries;
      const catalog = new Map(states.map((s) => [s.skill.slug, catalogEntry(s.skill, s.skill.currentVersion)]));
      const discovery = new Map<string, DiscoveryEntry>();
      await mapLimit(states, 32, async (state) => {
        const kept = previous.get(state.skill.slug);
        const archived = existing.has(archiveKey(state.skill.slug, state.skill.currentVersion));
        if (archived && kept?.version === state.skill.currentVersion) discovery.set(state.skill.slug, kept);
        else await this.patchDiscovery(discovery, state, archived);
      });
      await this.writeIndexes(catalog, discovery);
    });
    return { skills: states.length, written: written + 2 };
  }

  /** Bundles of free versions (once: they are immutable), then the two registry documents. */
  private async writeSkillFiles(state: SkillState): Promise<void> {
    const { skill, versions } = state;
    await this.writeBundles(state, await this.deps.staticStore.list(`bundles/${skill.slug}/`));
    await Promise.all([
      this.deps.staticStore.put(registryKey(skill.slug), canonicalJson(registryDocument(skill, versions))),
      this.deps.staticStore.put(versionsKey(skill.slug), canonicalJson(versionsDocument(skill, versions))),
    ]);
  }

  /** Writes the bundles a free skill is missing; paid content never reaches the static bucket. */
  private async writeBundles({ skill, versions }: SkillState, existing: Map<string, string>): Promise<number> {
    if (skill.paid) return 0;
    const missing = versions.filter((v) => !existing.has(bundleKey(skill.slug, v.version)));
    await mapLimit(missing, 4, async (version) => {
      await this.deps.staticStore.put(bundleKey(skill.slug, version.version), bundleBytes(await this.readFiles(version)));
    });
    return missing.length;
  }

  /** Sets or removes a skill's discovery entry, writing its archive when it has none yet. */
  private async patchDiscovery(entries: Map<string, DiscoveryEntry>, { skill, versions }: SkillState, mayExist = true): Promise<void> {
    if (skill.paid) {
      entries.delete(skill.slug);
      return;
    }
    const current = versions.find((v) => v.version === skill.currentVersion)!;
    if (entries.get(skill.slug)?.version === current.version) return;
    const key = archiveKey(skill.slug, current.version);
    let digest = mayExist ? (await this.deps.staticStore.metadata(key))?.sha256 : undefined;
    if (!digest) {
      const archive = skillArchive(await this.readFiles(current));
      digest = sha256Hex(archive);
      await this.deps.staticStore.put(key, archive, { sha256: digest });
    }
    entries.set(skill.slug, discoveryEntry(skill, current.version, digest));
  }

  private async readFiles(version: VersionItem): Promise<FileBytes[]> {
    return mapLimit(version.files, 8, async (file) => ({
      filename: file.filename,
      encoding: file.encoding,
      bytes: await getBlob(this.deps.blobs, file.sha256),
    }));
  }

  /**
   * Writes the catalog (its generatedAt always moves) and the discovery index unless the bucket
   * already holds exactly these bytes (`storedDiscovery`).
   */
  private async writeIndexes(catalog: Map<string, CatalogEntry>, discovery: Map<string, DiscoveryEntry>, storedDiscovery?: string): Promise<void> {
    const generatedAt = this.deps.clock().toISOString();
    const catalogBytes = canonicalJson(catalogDocument(catalog.values(), generatedAt));
    const discoveryBytes = canonicalJson(discoveryDocument(discovery.values()));
    const etag = await this.deps.staticStore.put(CATALOG_KEY, catalogBytes);
    this.catalog = { entries: catalog, etag };
    if (storedDiscovery !== discoveryBytes) await this.deps.staticStore.put(DISCOVERY_INDEX_KEY, discoveryBytes);
    this.discovery = { entries: discovery, bytes: discoveryBytes };
  }

  /**
   * The catalog as it stands. This process's copy is used while the bucket still holds what it
   * last wrote (a conditional GET answers 304 without moving the file); otherwise the bucket's.
   */
  private async loadCatalog(): Promise<Map<string, CatalogEntry>> {
    const cached = this.catalog;
    const stored = cached?.etag ? await this.deps.staticStore.getIfChanged(CATALOG_KEY, cached.etag) : await this.readCatalog();
    if (stored === 'unchanged') return new Map(cached!.entries);
    if (!stored) return new Map();
    const doc = JSON.parse(Buffer.from(stored.bytes).toString('utf8')) as CatalogDocument;
    return new Map(doc.skills.map((e) => [e.slug, e]));
  }

  private async readCatalog(): Promise<{ bytes: Uint8Array } | undefined> {
    const bytes = await this.deps.staticStore.get(CATALOG_KEY);
    return bytes ? { bytes } : undefined;
  }

  /** The discovery index as the bucket holds it (entries, and its bytes when present). */
  private async loadDiscovery(): Promise<{ entries: Map<string, DiscoveryEntry>; stored?: string }> {
    const stored = await this.deps.staticStore.get(DISCOVERY_INDEX_KEY);
    if (!stored) return { entries: new Map(this.discovery?.entries ?? []) };
    const text = Buffer.from(stored).toString('utf8');
    if (this.discovery?.bytes === text) return { entries: new Map(this.discovery.entries), stored: text };
    return { entries: new Map((JSON.parse(text) as DiscoveryDocument).skills.map((e) => [e.name, e])), stored: text };
  }

  private async readDiscovery(): Promise<{ entries: Map<string, DiscoveryEntry>; stored?: string }> {
    try {
      return await this.loadDiscovery();
    } catch {
      return { entries: new Map() }; // a damaged index is rebuilt from scratch
    }
  }

  private async scanAll(): Promise<SkillState[]> {
    const states = await scanSkillStates(this.deps.db);
    return mapLimit(states, 16, (state) => repairCurrentVersion(this.deps.db, state));
  }
}

function md5(body: string): string {
  return createHash('md5').update(body).digest('hex');
}
