import { createHash } from 'node:crypto';
import { bundleBytes, type FileBytes, sha256Hex } from '#core/bundle';
import { canonicalJson } from '#core/canonical-json';
import { fingerprintedVersions } from '#core/clawhub-fingerprint';
import { mapLimit } from '#core/map-limit';
import {
  type CatalogDocument,
  type CatalogEntry,
  catalogEntry,
  catalogList,
  type DiscoveryDocument,
  type DiscoveryEntry,
  discoveryEntry,
  discoveryJson,
  discoveryList,
  inSharedIndexes,
  scopedDiscoveryJson,
  skillMdEntry,
} from '#core/catalog';
import type { SortedJsonList } from '#core/sorted-json-list';
import { contentIsPublic, hasStaticFiles, isPublicListing } from '#core/policy';
import { registryDocuments, type VersionsDocument } from '#core/registry-document';
import type { SkillIssue } from '#core/skill-front-matter';
import { SKILL_FILE } from '#core/filename';
import { type RecordedSignature, SIGNATURE_FORMAT, signedDigest } from '#core/version-signature';
import {
  archiveKey,
  bundleKey,
  CATALOG_KEY,
  currentSkillMdKey,
  DISCOVERY_INDEX_KEY,
  LEGACY_DISCOVERY_INDEX_KEY,
  registryKey,
  scopedDiscoveryKey,
  SIGNING_KEYS_KEY,
  skillMdKey,
  versionsKey,
} from '#core/static-paths';
import { getBlob, getFiles } from '../content/blobs.ts';
import type { Deps } from '../platform/composition.ts';
import { putFingerprints, type RecordedFingerprint } from '../store/fingerprints.ts';
import { putSignatures } from '../store/signatures.ts';
import { publishedKeys, signVersionFacts } from '../platform/signer.ts';
import { withLock } from '../store/locks.ts';
import type { SkillItem, VersionItem } from '../store/skills.ts';
import { repairLookalikeIndex } from './lookalike-repair.ts';
import { scanSkillStates } from './scan.ts';
import type { SearchChange, SearchIndexWriter } from './search-index.ts';
import { type EachSkill, eachSkill, type SkillFailure, type SkillRef, skillFailure } from './skill-failure.ts';
import { PagedCatalog } from './paged-catalog.ts';
import { awaitsObservation, loadSkillState, repairSkill, type SkillState, shownState } from './skill-state.ts';

/**
 * The rebuild: turns what DynamoDB and the content bucket hold into the static files of
 * docs/api.md §11. `rebuild(ids)` touches only the named skills' files plus the two shared indexes,
 * so its cost does not grow with the number of skills (apart from serialising the catalog).
 * Everything it writes is derived, so running it again is always safe.
 */
export class Rebuilder {
  /**
   * The catalog's pages and index (paged-catalog.ts), and the discovery index as this process last
   * wrote it, with the ETag the bucket gave it: while the bucket still holds that (a conditional
   * GET answers 304 without moving the file), a rebuild patches it in place instead of reading
   * and parsing megabytes.
   */
  private readonly catalog: PagedCatalog;
  private discovery?: HeldIndex<DiscoveryEntry>;
  /**
   * Bundle keys known to be in the bucket. Bundles are immutable and never deleted, so the set
   * only grows and is never stale; it spares most rebuilds any lookup of the bundles a skill has.
   */
  private readonly bundled = new Set<string>();
  /**
   * When this rebuilder started. The bundle of the version published last, when that was after
   * this moment, is written without asking the bucket first: it is almost never there yet (only
   * when another rebuilder already handled the same change; the same bytes again are harmless).
   */
  private readonly startedAt: number;
  /**
   * Skills the full rebuild could not rebuild: some of their bundles may be missing, whatever
   * {@link RebuilderOptions.bundlesCompleteAtStart} says, so their bundles are looked up.
   */
  private readonly notRebuilt = new Set<string>();
  /**
   * The search index's writer (functions/rebuild/search-index.ts), patched with the catalog. It
   * and MiniSearch are loaded at the first index run, as the conformance check is.
   */
  private searchWriter?: Promise<SearchIndexWriter>;
  private loadedSearch?: SearchIndexWriter;
  /** `keys.json`, written by the first index run of this rebuilder (and by every full rebuild). */
  private keysWritten?: Promise<void>;

  constructor(
    private readonly deps: Deps,
    private readonly options: RebuilderOptions = {},
  ) {
    this.startedAt = deps.clock().getTime();
    this.catalog = new PagedCatalog(deps.staticStore, deps.clock);
  }

  /**
   * Assembles `/.well-known/skills.json` from the catalog's pages unless it already holds the
   * index as it stands: what the schedule runs when writes leave it to the schedule
   * ({@link RebuilderOptions.catalogAssembly}). Gives whether it wrote.
   */
  assembleCatalog(): Promise<boolean> {
    return this.catalog.assembleIfStale();
  }

  /** The search index's writer, loaded on first use. */
  search(): Promise<SearchIndexWriter> {
    this.searchWriter ??= import('./search-index.ts').then(({ SearchIndexWriter }) => {
      this.loadedSearch = new SearchIndexWriter(this.deps);
      return this.loadedSearch;
    });
    return this.searchWriter;
  }

  /**
   * Rebuilds the files of `skillIds`, then their entries in the catalog, the discovery index and
   * the fingerprint index ({@link rebuildFiles} then {@link rebuildIndexes}: the stream Lambda
   * runs both per batch).
   * Gives the skills that failed; every other skill is rebuilt and indexed all the same.
   */
  async rebuild(skillIds: Iterable<string>): Promise<SkillFailure[]> {
    const { states, failed } = await this.rebuildFiles(skillIds);
    return [...failed, ...(await this.rebuildIndexes(states))];
  }

  /**
   * Rebuilds each skill's own files (bundles before the registry documents that point at them),
   * each skill on its own, and returns the skills rebuilt, as read, for {@link rebuildIndexes},
   * and those that failed. Skills without a published version are in neither.
   */
  async rebuildFiles(skillIds: Iterable<string>): Promise<RebuiltFiles> {
    const started = performance.now();
    const read = await eachSkill(
      [...new Set(skillIds)],
      8,
      (skillId) => ({ skillId }),
      (id) => loadSkillState(this.deps.db, id),
    );
    const published = [...read.built.values()].filter((s): s is SkillState => s !== undefined).map(shownState);
    const written = await eachSkill(published, 8, skillOf, (state) => this.writeSkillFiles(state));
    const states = [...written.built.keys()];
    this.deps.log.debug('rebuilt files', {
      skills: states.length,
      failed: read.failed.length + written.failed.length,
      ms: Math.round(performance.now() - started),
    });
    return { states, failed: [...read.failed, ...written.failed] };
  }

  /**
   * Sets the skills' entries in the catalog and the discovery index, writing each free skill's
   * archive before the index that points at it, and records the fingerprints their versions'
   * publishes did not. `states` must be as {@link rebuildFiles} read them: their files are in the
   * bucket. A skill whose archive or fingerprints cannot be written keeps the entries it had (its
   * older archive is still there) and is returned as failed; the others are indexed. A failure of the shared indexes themselves (the lock, the catalog write) throws.
   */
  async rebuildIndexes(states: SkillState[]): Promise<SkillFailure[]> {
    if (states.length === 0) return [];
    const started = performance.now();
    // Once per process (a Lambda container, a local run): the keys change only with a deployment.
    this.keysWritten ??= this.writeSigningKeys().catch((error: unknown) => {
      this.keysWritten = undefined;
      throw error;
    });
    await this.keysWritten;
    const fingerprinted = this.recordFingerprints(states);
    // Only the discovery index points at archives: they are written while the catalog is patched.
    const archived = eachSkill(states, 8, skillOf, (state) => this.archiveEntry(state, this.discovery?.list.get(state.skill.slug)));
    await this.patchIndexes(states, archived);
    const { built, failed } = await archived;
    for (const [{ skill }, { issues }] of built) {
      if (issues)
        this.deps.log.warn('left out of the discovery index: not a valid Agent Skill', { skillId: skill.id, slug: skill.slug, issues: issues.length });
    }
    this.deps.log.debug('rebuilt indexes', { skills: states.length, failed: failed.length, ms: Math.round(performance.now() - started) });
    return withoutRepeats([...failed, ...(await fingerprinted)]);
  }

  /**
   * The skill with every version signed by the active key over its facts as they are now: the
   * versions without a signature (published before signatures, or whose publish could not sign),
   * those signed by a retired key or in format 1, and those whose facts moved on since they were
   * signed (a yank or its undoing, a rescan's verdict, an appeal's review) are signed now and
   * recorded (store/signatures.ts). Private skills too: their members' registry documents carry
   * signatures as the public ones do.
   */
  private async signed(state: SkillState): Promise<SkillState> {
    const { signer, db } = this.deps;
    const active = await signer.activeKey();
    const slug = state.skill.slug;
    const unsigned = state.versions.filter(
      (v) => v.signature?.keyid !== active.keyid || v.signature.format !== SIGNATURE_FORMAT || v.signature.signed !== signedDigest({ slug, ...v }),
    );
    if (unsigned.length === 0) return state;
    const signatures = new Map<string, RecordedSignature>();
    await mapLimit(unsigned, 4, async (v) => {
      signatures.set(v.version, await signVersionFacts(signer, { slug, ...v }));
    });
    await putSignatures(
      db,
      unsigned.map((v) => ({ skillId: state.skill.id, version: v.version, integrity: v.integrity, signature: signatures.get(v.version)! })),
    );
    return { ...state, versions: state.versions.map((v) => (signatures.has(v.version) ? { ...v, signature: signatures.get(v.version)! } : v)) };
  }

  /**
   * `/.well-known/skillpress/keys.json`: the keys (platform/signer.ts), and the format the
   * registry signs in, by which `npm start` tells a store signed in an older format.
   */
  private async writeSigningKeys(put: (key: string, body: string) => Promise<unknown> = (key, body) => this.deps.staticStore.put(key, body)): Promise<void> {
    const keys = await publishedKeys(this.deps.signer, this.deps.config.signing, this.deps.clock());
    await put(SIGNING_KEYS_KEY, canonicalJson({ keys, signatureFormat: SIGNATURE_FORMAT }));
  }

  /**
   * Records the fingerprints of the skills' versions that their partitions lack (a version
   * published before publishes recorded them, or a publish that stopped in between) or that name
   * another version (a re-release of the same files), all in batched writes, so ClawHub's
   * resolve finds every version in one read (store/fingerprints.ts). Gives the skills whose fingerprints could not
   * be written; never throws.
   */
  private async recordFingerprints(states: readonly SkillState[]): Promise<SkillFailure[]> {
    const unrecorded = states.flatMap(unrecordedFingerprints);
    if (unrecorded.length === 0) return [];
    try {
      await putFingerprints(this.deps.db, unrecorded);
      return [];
    } catch (error) {
      const failing = new Set(unrecorded.map((f) => f.skillId));
      return states.filter((state) => failing.has(state.skill.id)).map((state) => skillFailure(skillOf(state), error));
    }
  }

  /**
   * Regenerates every skill's files and both indexes from DynamoDB: the repair path. A skill
   * that cannot be rebuilt is reported and keeps the index entries it had; every other skill and
   * both indexes are rebuilt all the same. It also records the fingerprints a partition lacks
   * and completes the lookalike index of popular skills that the imitation check reads.
   */
  async rebuildAll(): Promise<RebuildReport> {
    return this.finishRebuild([await this.rebuildShard(0, 1)]);
  }

  /**
   * Shard `shard` of `shards` of the full rebuild (functions/rebuild/shards.ts): the skills of its
   * share of the table's scan segments, each skill's files written on its own as the stream
   * rebuild writes them, its archives, its fingerprints; and, for {@link finishRebuild}, its
   * skills' entries in the shared indexes and what it could not rebuild. Writes no shared index.
   */
  async rebuildShard(shard: number, shards: number): Promise<ShardOutput> {
    const scanned = await scanSkillStates(this.deps.db, { shard, shards });
    const { built, failed: unrepaired } = await eachSkill(scanned.states, 16, skillOf, async (state) => shownState(await repairSkill(this.deps.db, state)));
    // Counts every object this shard writes (bundles, registry files, archives).
    let written = 0;
    const stopCounting = this.deps.staticStore.onWrite(() => (written += 1));
    try {
      // keys.json before any document carrying a signature of the active key (a rotation signs
      // everything again), so no client meets a key it cannot look up; finishRebuild writes it
      // once more, from its own signer, when a shard's copy differs.
      const keysEtag = await this.deps.staticStore.etag(SIGNING_KEYS_KEY);
      this.keysWritten = this.writeSigningKeys((key, body) => this.putIfChanged(key, body, keysEtag));
      await this.keysWritten;
      const previousDiscovery = await this.loadPrevious(DISCOVERY_INDEX_KEY, parseDiscovery);
      const stored = new Map<string, Map<string, string>>();
      const files = await eachSkill([...built.values()], 32, skillOf, async (read) => {
        const state = await this.signed(read);
        if (!hasStaticFiles(state.skill)) return;
        const objects = await this.storedObjects(state, previousDiscovery.get(state.skill.slug));
        stored.set(state.skill.id, objects);
        await this.writeBundles(state, objects);
        const documents = registryDocuments(state.skill, state.versions);
        await this.putIfChanged(registryKey(state.skill.slug), canonicalJson(documents.registry), objects.get(registryKey(state.skill.slug)));
        await this.putIfChanged(versionsKey(state.skill.slug), canonicalJson(documents.versions), objects.get(versionsKey(state.skill.slug)));
      });
      const rebuilt = [...files.built.keys()];
      // Beside the archives: a skill whose fingerprints fail keeps its index entries all the same.
      const fingerprinted = this.recordFingerprints(rebuilt);
      const archived = await eachSkill(rebuilt, 32, skillOf, (state) =>
        this.archiveEntry(state, previousDiscovery.get(state.skill.slug), stored.get(state.skill.id)),
      );
      const catalog = rebuilt.filter(listed).map(catalogEntryOf);
      const states = new Map(rebuilt.map((state) => [state.skill.slug, state]));
      const output: ShardOutput = {
        rebuilt: rebuilt.length,
        written: 0,
        catalog,
        search: catalog.map((entry) => searchChange(states.get(entry.slug), entry)),
        discovery: [],
        nonConforming: [],
        failed: withoutRepeats([...scanned.failed, ...unrepaired, ...files.failed, ...archived.failed, ...(await fingerprinted)]),
        skills: scanned.states.map(({ skill }) => skill),
        installs: [...scanned.installs],
        lookalikes: [...scanned.lookalikes].map(([key, ids]) => [key, [...ids]]),
      };
      for (const [{ skill }, { entry, issues }] of archived.built) {
        if (entry && inSharedIndexes(entry)) output.discovery.push(entry);
        if (issues) output.nonConforming.push({ skillId: skill.id, slug: skill.slug, version: skill.currentVersion, issues });
      }
      output.written = written;
      return output;
    } finally {
      stopCounting();
    }
  }

  /**
   * The end of a full rebuild: the shared indexes written once, from scratch, from what the shards
   * produced (the skills a shard could not rebuild keep the entries the indexes had for them: a
   * skill that cannot be rebuilt stays listed as it was rather than vanish), then the lookalike
   * index of popular skills completed from the shards' install counts.
   */
  async finishRebuild(outputs: readonly ShardOutput[]): Promise<RebuildReport> {
    let written = outputs.reduce((sum, o) => sum + o.written, 0);
    const stopCounting = this.deps.staticStore.onWrite(() => (written += 1));
    const failed = withoutRepeats(outputs.flatMap((o) => o.failed));
    try {
      const keysEtag = await this.deps.staticStore.etag(SIGNING_KEYS_KEY);
      this.keysWritten = this.writeSigningKeys((key, body) => this.putIfChanged(key, body, keysEtag));
      await this.keysWritten;
      await withLock(this.deps.db, 'static-indexes', async (lease) => {
        const [previousCatalog, previousDiscovery, existing] = await Promise.all([
          this.loadPrevious(CATALOG_KEY, parseCatalog),
          this.loadPrevious(DISCOVERY_INDEX_KEY, parseDiscovery),
          this.deps.staticStore.list('catalog/'),
        ]);
        const catalog = catalogList(outputs.flatMap((o) => o.catalog));
        const discovery = discoveryList(outputs.flatMap((o) => o.discovery));
        for (const { slug } of failed) {
          if (slug === undefined) continue;
          keepEntry(catalog, previousCatalog, slug);
          keepEntry(discovery, previousDiscovery, slug);
        }
        // The search index before the catalog: a client that sees a skill in the catalog finds it by search too.
        const changes = new Map(outputs.flatMap((o) => o.search).map((change) => [change.slug, change]));
        await (await this.search()).writeAll([...catalog.values()].map((entry) => changes.get(entry.slug) ?? searchChange(undefined, entry)));
        try {
          await this.writeIndexes(() => this.catalog.replace(catalog, existing), Promise.resolve({ list: discovery }));
          await this.catalog.assembleIfStale();
        } catch (error) {
          this.forgetIndexes();
          throw error;
        }
        lease.leave(this.indexEtags());
      });
      for (const { skillId } of failed) this.notRebuilt.add(skillId);
      const unindexed = await repairLookalikeIndex(this.deps.db, {
        states: outputs.flatMap((o) => o.skills.map((skill) => ({ skill, versions: [], fingerprints: new Map() }))),
        failed: [],
        installs: sumInstalls(outputs),
        lookalikes: new Map(outputs.flatMap((o) => o.lookalikes.map(([key, ids]) => [key, new Set(ids)] as const))),
      });
      return {
        skills: outputs.reduce((sum, o) => sum + o.rebuilt, 0),
        written,
        failed: withoutRepeats([...failed, ...unindexed]),
        nonConforming: outputs.flatMap((o) => o.nonConforming).sort((a, b) => (a.slug < b.slug ? -1 : 1)),
      };
    } finally {
      stopCounting();
    }
  }

  /** Writes `body` at `key` unless `md5`, the MD5 of what the bucket holds there, is the body's. */
  private async putIfChanged(key: string, body: string, md5Stored: string | undefined): Promise<void> {
    if (md5Stored === md5(body)) return;
    await this.deps.staticStore.put(key, body);
  }

  /**
   * What the bucket holds of the objects the full rebuild may write for one skill (key → MD5, ''
   * where only presence is known), asked for under the skill's own keys: the ETags of its two
   * registry documents (a HEAD, and the GET of its versions document), the bundles that document
   * lists (it is written only once all of them are in the bucket), the others as
   * {@link presentBundles} finds them, and its current artifact when the previous discovery
   * index (`known`) does not name it. A few requests a skill, however large the bucket: each
   * shard used to list the whole bucket first (at 10,000 skills 65,000 keys, 11–16 s; at a
   * million skills 6,500 list pages and about two minutes of CPU, for every shard).
   */
  private async storedObjects({ skill, versions }: SkillState, known: DiscoveryEntry | undefined): Promise<Map<string, string>> {
    const objects = new Map<string, string>();
    const [registry, versionsDocument] = await Promise.all([
      this.deps.staticStore.etag(registryKey(skill.slug)),
      this.deps.staticStore.getIfChanged(versionsKey(skill.slug)),
    ]);
    if (registry !== undefined) objects.set(registryKey(skill.slug), registry);
    const document = versionsDocument === 'unchanged' ? undefined : versionsDocument;
    if (document) objects.set(versionsKey(skill.slug), (document.etag ?? '').replaceAll('"', ''));
    if (!contentIsPublic(skill)) return objects;
    const listed = new Set(document ? versionsListed(document.bytes) : []);
    const unknown: string[] = [];
    for (const { version } of versions) {
      const key = bundleKey(skill.slug, version);
      if (listed.has(version)) objects.set(key, '');
      else unknown.push(key);
    }
    if (unknown.length > HEAD_BUNDLES_AT_MOST) {
      for (const key of (await this.deps.staticStore.list(`bundles/${skill.slug}/`)).keys()) objects.set(key, '');
    } else {
      const found = await Promise.all(unknown.map((key) => this.deps.staticStore.metadata(key)));
      for (const [i, key] of unknown.entries()) if (found[i]) objects.set(key, '');
    }
    const current = versions.find((v) => v.version === skill.currentVersion);
    if (current && known?.version !== current.version) {
      const lone = current.files.length === 1 && current.files[0]!.filename === SKILL_FILE;
      const artifact = lone ? skillMdKey(skill.slug, current.version) : archiveKey(skill.slug, current.version);
      if (await this.deps.staticStore.metadata(artifact)) objects.set(artifact, '');
    }
    return objects;
  }

  /** A shared index as the bucket holds it, for the full rebuild; empty when missing or damaged (it is rebuilt from scratch). */
  private async loadPrevious<T>(key: string, parse: (text: string) => SortedJsonList<T>): Promise<SortedJsonList<T>> {
    try {
      return (await this.loadIndex(key, undefined, parse)).list;
    } catch {
      return parse('');
    }
  }

  /**
   * A skill's registry files: bundles of free versions (once: they are immutable), then the two
   * registry documents (of a quarantined skill, only who it is, and no bundle of any version
   * stored while it is quarantined).
   */
  private async writeSkillFiles(read: SkillState): Promise<void> {
    const state = await this.signed(read);
    const { skill, versions } = state;
    // A private skill has no static file at all: its members read it through the API.
    if (!hasStaticFiles(skill)) return;
    // A skill whose every version was refused has none to bundle.
    if (contentIsPublic(skill) && versions.length > 0) await this.writeBundles(state, await this.presentBundles(state));
    const documents = registryDocuments(skill, versions);
    await Promise.all([
      this.deps.staticStore.put(registryKey(skill.slug), canonicalJson(documents.registry)),
      this.deps.staticStore.put(versionsKey(skill.slug), canonicalJson(documents.versions)),
    ]);
  }

  /** Writes the bundles a free skill is missing; paid or quarantined content never reaches the static bucket. */
  private async writeBundles({ skill, versions }: SkillState, existing: { has(key: string): boolean }): Promise<void> {
    if (!contentIsPublic(skill)) return;
    const missing = versions.filter((v) => !existing.has(bundleKey(skill.slug, v.version)));
    await mapLimit(missing, 4, async (version) => {
      const key = bundleKey(skill.slug, version.version);
      await this.deps.staticStore.put(key, bundleBytes(await this.readFiles(version)));
      this.bundled.add(key);
    });
  }

  /**
   * Which of a free skill's bundles the bucket holds, asking only about versions not known yet,
   * apart from one just published (see {@link startedAt}); versions published before the start
   * are known when the caller says the bucket was complete then
   * ({@link RebuilderOptions.bundlesCompleteAtStart}), unless the full rebuild failed on the
   * skill ({@link notRebuilt}). The skill's versions document answers
   * first, in one GET for any number of versions: it is written only once the bundles of every
   * version it lists are in the bucket (and a skill never turns from paid to free). Versions it
   * does not list (a rebuild failed in between, or it is missing) get a HEAD each for a few, a
   * listing of the skill's folder for more. Listing for every write was the one per-write cost
   * that grew with the number of skills against s3rver, which walks the whole `bundles/` folder
   * to list a prefix.
   */
  private async presentBundles({ skill, versions }: SkillState): Promise<Set<string>> {
    const beforeStart = (v: VersionItem) => Date.parse(v.publishedAt) < this.startedAt;
    if (this.options.bundlesCompleteAtStart && !this.notRebuilt.has(skill.id))
      for (const v of versions) if (beforeStart(v)) this.bundled.add(bundleKey(skill.slug, v.version));
    const last = versions.reduce((a, b) => (b.publishedAt > a.publishedAt ? b : a));
    const unknownOf = (candidates: VersionItem[]) => candidates.map((v) => bundleKey(skill.slug, v.version)).filter((key) => !this.bundled.has(key));
    const older = versions.filter((v) => v !== last || beforeStart(v));
    if (unknownOf(older).length === 0) return this.bundled;
    for (const version of await this.listedVersions(skill.slug)) this.bundled.add(bundleKey(skill.slug, version));
    const unknown = unknownOf(older);
    if (unknown.length > HEAD_BUNDLES_AT_MOST) {
      for (const key of (await this.deps.staticStore.list(`bundles/${skill.slug}/`)).keys()) this.bundled.add(key);
    } else {
      const found = await Promise.all(unknown.map((key) => this.deps.staticStore.metadata(key)));
      for (const [i, key] of unknown.entries()) if (found[i]) this.bundled.add(key);
    }
    return this.bundled;
  }

  /** The versions a skill's versions document lists; none when it is missing or unreadable. */
  private async listedVersions(slug: string): Promise<string[]> {
    const bytes = await this.deps.staticStore.get(versionsKey(slug));
    return bytes ? versionsListed(bytes) : [];
  }

  /**
   * A free skill's discovery entry, writing the artifact of its current version (its archive, or
   * its `SKILL.md` when that is its only file) unless `known` (an index entry for that version
   * and type) or the listing `existing` of a full rebuild says the bucket has it. Artifacts are
   * deterministic, so without either (the current version just moved, almost always) one is
   * written without asking first: a HEAD would cost a round trip on the way to the index to
   * spare a rare rewrite of the same bytes. A current version that is not a valid Agent Skill
   * (published before the check) has no entry and no artifact: its problems come back instead.
   */
  private async archiveEntry(state: SkillState, known: DiscoveryEntry | undefined, existing?: Map<string, string>): Promise<ArchiveOutcome> {
    const outcome = await this.artifactEntry(state, known, existing);
    await this.writeSkillDiscovery(state, outcome.entry, known);
    return outcome;
  }

  /**
   * A skill's own discovery files, when its entry changed: its one-skill index under its page
   * (emptied once it has no entry: paid, quarantined or not conforming), and its current
   * `SKILL.md` at the unversioned path. Unchanged entries (the usual rebuild of an index) write
   * nothing.
   */
  private async writeSkillDiscovery({ skill, versions }: SkillState, entry: DiscoveryEntry | undefined, known: DiscoveryEntry | undefined): Promise<void> {
    if (entry === undefined ? known === undefined : known !== undefined && canonicalJson(entry) === canonicalJson(known)) return;
    const writes = [this.deps.staticStore.put(scopedDiscoveryKey(skill.slug), scopedDiscoveryJson(entry))];
    if (entry) {
      const current = versions.find((v) => v.version === skill.currentVersion)!;
      const skillFile = current.files.find((f) => f.filename === SKILL_FILE);
      if (skillFile) writes.push(getBlob(this.deps.blobs, skillFile.sha256).then((bytes) => this.deps.staticStore.put(currentSkillMdKey(skill.slug), bytes)));
    }
    await Promise.all(writes);
  }

  private async artifactEntry(state: SkillState, known: DiscoveryEntry | undefined, existing?: Map<string, string>): Promise<ArchiveOutcome> {
    const { skill, versions } = state;
    if (!contentIsPublic(skill) || awaitsObservation(state)) return {};
    const current = versions.find((v) => v.version === skill.currentVersion)!;
    const described = await this.skillDescription(skill.slug, current);
    if ('issues' in described) return { issues: described.issues };
    const { description } = described;
    const [only] = current.files;
    if (current.files.length === 1 && only!.filename === SKILL_FILE) {
      // A SKILL.md alone is listed as itself; its digest is the one stored with the version.
      const key = skillMdKey(skill.slug, current.version);
      const listed = known?.version === current.version && known.type === 'skill-md';
      if (!listed && !existing?.has(key)) await this.deps.staticStore.put(key, (await this.readFiles(current))[0]!.bytes);
      return { entry: skillMdEntry(skill, current.version, only!.sha256, description, current) };
    }
    if (known?.version === current.version && known.type === 'archive') {
      return { entry: discoveryEntry(skill, current.version, known.digest.slice('sha256:'.length), description, current) };
    }
    const key = archiveKey(skill.slug, current.version);
    let digest = existing?.has(key) ? (await this.deps.staticStore.metadata(key))?.sha256 : undefined;
    if (!digest) {
      // tar (its one minified module, 82 KB) is loaded with the first archive to make, not at every cold start.
      const { skillArchive } = await import('#core/skill-archive');
      const archive = skillArchive(await this.readFiles(current));
      digest = sha256Hex(archive);
      await this.deps.staticStore.put(key, archive, { sha256: digest });
    }
    return { entry: discoveryEntry(skill, current.version, digest, description, current) };
  }

  /**
   * The `SKILL.md` description of a version, which the discovery index lists: recorded on the
   * version when it passed the conformance check at publish; for a version published before the
   * check, read from its `SKILL.md` and checked here (one file, from the blob cache after the
   * first time), giving the problems when it does not conform. The check and its YAML parser
   * are loaded only then, so the rebuild Lambda does not carry them at every cold start.
   */
  private async skillDescription(slug: string, version: VersionItem): Promise<{ description: string } | { issues: SkillIssue[] }> {
    if (version.frontMatterDescription !== undefined) return { description: version.frontMatterDescription };
    const { checkSkillConformance } = await import('#core/skill-conformance');
    const skillFile = version.files.find((f) => f.filename === SKILL_FILE);
    const files = await mapLimit(version.files, 8, async (file) => ({
      filename: file.filename,
      bytes: file === skillFile ? await getBlob(this.deps.blobs, file.sha256) : new Uint8Array(),
    }));
    const { issues, description } = checkSkillConformance(files, slug);
    return issues.length === 0 && description !== undefined ? { description } : { issues };
  }

  private readFiles(version: VersionItem): Promise<FileBytes[]> {
    return getFiles(this.deps.blobs, version.files);
  }

  /**
   * Sets the skills' entries in both shared indexes under the lease lock, and writes them: the
   * catalog at once, the discovery index once the skills' archives (`archived`, each skill's
   * discovery entry, none for a paid or non-conforming skill, and the skills whose archive
   * failed) are in the bucket.
   */
  private async patchIndexes(states: SkillState[], archived: Promise<EachSkill<SkillState, ArchiveOutcome>>): Promise<void> {
    await withLock(this.deps.db, 'static-indexes', async (lease) => {
      try {
        const discovery = await this.loadIndex(DISCOVERY_INDEX_KEY, this.discovery, parseDiscovery, lease.previous);
        const set = states.filter(listed).map(catalogEntryOf);
        const remove = states.filter((state) => !listed(state)).map((state) => state.skill.slug);
        // A skill whose archive failed is not in `built`: its entry stays as it was.
        const patched = archived.then(({ built }) => {
          for (const [{ skill }, { entry }] of built) {
            if (entry && inSharedIndexes(entry)) discovery.list.set(entry);
            else discovery.list.delete(skill.slug);
          }
          return discovery;
        });
        // The search index before the catalog: a client that sees a skill in the catalog finds it by search too.
        const entries = new Map(set.map((entry) => [entry.slug, entry]));
        await (await this.search()).patch(
          states.map((state) => searchChange(state, entries.get(state.skill.slug))),
          lease.previous,
        );
        await this.writeIndexes(() => this.catalog.patch(set, remove, lease.previous), patched);
        if (this.options.catalogAssembly !== 'scheduled') await this.catalog.assemble(this.catalog.etags());
        lease.leave(this.indexEtags());
      } catch (error) {
        this.forgetIndexes();
        throw error;
      }
    });
  }

  /** What this process holds may now differ from the bucket: read the bucket next time. */
  private forgetIndexes(): void {
    this.catalog.forget();
    this.discovery = undefined;
    this.loadedSearch?.forget();
  }

  /**
   * Writes the catalog's pages and index (`writeCatalog`) and the discovery index unless the
   * bucket already holds exactly its bytes, side by side.
   */
  private async writeIndexes(writeCatalog: () => Promise<void>, patched: Promise<HeldIndex<DiscoveryEntry>>): Promise<void> {
    const writeDiscovery = async () => {
      const discovery = await patched;
      const bytes = discoveryJson(discovery.list);
      const unchanged = discovery.etag !== undefined && discovery.bytes === bytes;
      if (unchanged) return { list: discovery.list, etag: discovery.etag, bytes };
      // The same index at the v0.1 path too, where older clients look.
      const [etag] = await Promise.all([this.deps.staticStore.put(DISCOVERY_INDEX_KEY, bytes), this.deps.staticStore.put(LEGACY_DISCOVERY_INDEX_KEY, bytes)]);
      return { list: discovery.list, etag, bytes };
    };
    const [, discovery] = await Promise.all([writeCatalog(), writeDiscovery()]);
    this.discovery = discovery;
  }

  /** The ETags of the indexes as this process last wrote them, for the lock's memo. */
  private indexEtags(): Record<string, string> {
    const etags: Record<string, string> = { ...this.catalog.etags() };
    if (this.discovery?.etag) etags[DISCOVERY_INDEX_KEY] = this.discovery.etag;
    return { ...etags, ...this.loadedSearch?.etags() };
  }

  /**
   * A shared index as it stands: `held` when the lock's memo says the last holder wrote exactly
   * that (this process, then: nothing to read), or while the bucket still has its ETag (a
   * conditional GET, 304); else the bucket's copy (an empty list when there is none).
   */
  private async loadIndex<T>(
    key: string,
    held: HeldIndex<T> | undefined,
    parse: (text: string) => SortedJsonList<T>,
    lastWritten?: Record<string, string>,
  ): Promise<HeldIndex<T>> {
    if (held?.etag !== undefined && lastWritten?.[key] === held.etag) return held;
    const stored = await this.deps.staticStore.getIfChanged(key, held?.etag);
    if (stored === 'unchanged') return held!;
    if (!stored) return { list: parse('') };
    const bytes = Buffer.from(stored.bytes).toString('utf8');
    return { list: parse(bytes), etag: stored.etag, bytes };
  }
}

export interface RebuilderOptions {
  /**
   * When `/.well-known/skills.json` is assembled from the catalog's pages: after each write
   * (locally, where the catalog is small and the rebuild is off the request path), or by the
   * schedule alone ({@link Rebuilder.assembleCatalog}; the stream Lambda, so that a write's cost
   * stays one page and the index whatever the number of skills).
   */
  catalogAssembly?: 'each-write' | 'scheduled';
  /**
   * The caller knows that the bucket held the bundle of every free version published before
   * this rebuilder started: the local runtime, after a clean stop (which waits until every write
   * is rebuilt) or once the full rebuild it runs before any request is done. Those bundles are
   * then taken as present, and only versions published since are looked up: the first write to
   * each skill after a start spares a read of its versions document. The stream Lambda cannot
   * know this and leaves it unset.
   */
  bundlesCompleteAtStart?: boolean;
}

/**
 * What one shard of a full rebuild produced (structured-cloneable: it crosses a thread locally, and
 * is stored as JSON between the shard Lambdas and the one that finishes on AWS).
 */
export interface ShardOutput {
  /** Skills whose files it wrote. */
  rebuilt: number;
  /** Objects it wrote. */
  written: number;
  /** Its rebuilt skills' entries in the shared indexes and the search index. */
  catalog: CatalogEntry[];
  discovery: DiscoveryEntry[];
  search: SearchChange[];
  nonConforming: NonConformingSkill[];
  failed: SkillFailure[];
  /** For the lookalike index's repair, which needs the whole table's: its skills, its part of the install totals and of the index. */
  skills: SkillItem[];
  installs: [string, number][];
  lookalikes: [string, string[]][];
}

/** Each skill's all-time distinct installs, over the shards (a hot skill's counter items may fall in several). */
function sumInstalls(outputs: readonly ShardOutput[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const output of outputs) for (const [id, count] of output.installs) totals.set(id, (totals.get(id) ?? 0) + count);
  return totals;
}

/** What a full rebuild did: skills rebuilt, objects written (unchanged ones are skipped), and the skills it could not rebuild. */
export interface RebuildReport {
  skills: number;
  written: number;
  failed: SkillFailure[];
  /** Free skills left out of the discovery index because their current version is not a valid Agent Skill. */
  nonConforming: NonConformingSkill[];
}

/** A skill whose current version is not a valid Agent Skill (published before the check), and why. */
export interface NonConformingSkill {
  skillId: string;
  slug: string;
  version: string;
  issues: SkillIssue[];
}

/** A free skill's discovery entry, or the problems that keep it out of the index; neither for a paid skill. */
interface ArchiveOutcome {
  entry?: DiscoveryEntry;
  issues?: SkillIssue[];
}

/** What {@link Rebuilder.rebuildFiles} did: the skills whose files are in the bucket, as read, and those that failed. */
export interface RebuiltFiles {
  states: SkillState[];
  failed: SkillFailure[];
}

const skillOf = ({ skill }: SkillState): SkillRef => ({ skillId: skill.id, slug: skill.slug });

/**
 * The fingerprints of a skill's versions that its partition does not record as naming them. A
 * private skill gets none: ClawHub's clients, which resolve with them, cannot see it.
 */
function unrecordedFingerprints({ skill, versions, fingerprints }: SkillState): RecordedFingerprint[] {
  if (!hasStaticFiles(skill)) return [];
  return [...fingerprintedVersions(versions)]
    .filter(([fingerprint, version]) => fingerprints.get(fingerprint) !== version)
    .map(([fingerprint, version]) => ({ skillId: skill.id, fingerprint, version }));
}

/** The failures, each skill's first only. */
function withoutRepeats(failures: SkillFailure[]): SkillFailure[] {
  const seen = new Set<string>();
  return failures.filter(({ skillId }) => !seen.has(skillId) && seen.add(skillId));
}

/**
 * What the search index takes of a skill: its catalog entry (none once it left the catalog), and
 * the `SKILL.md` of its current version when it is free (`state` is unknown for a skill the full
 * rebuild could not read: its entry is kept, without its text).
 */
function searchChange(state: SkillState | undefined, entry: CatalogEntry | undefined): SearchChange {
  const slug = entry?.slug ?? state!.skill.slug;
  const current = state?.versions.find((v) => v.version === state.skill.currentVersion);
  const skillMd = current?.files.find((f) => f.filename === SKILL_FILE);
  return { slug, ...(entry ? { entry } : {}), ...(skillMd && entry && !entry.paid ? { skillMd: { version: current!.version, sha256: skillMd.sha256 } } : {}) };
}

/** A listed skill's catalog entry, with the verdict its current version stands under. */
function catalogEntryOf({ skill, versions }: SkillState): CatalogEntry {
  return catalogEntry(
    skill,
    skill.currentVersion,
    versions.find((v) => v.version === skill.currentVersion),
  );
}

/**
 * Whether a skill belongs in the catalog: every public skill but a quarantined one and one with
 * nothing installed by default yet (the discovery index also leaves out paid ones, and those
 * whose current version does not stand as clean).
 */
const listed = (state: SkillState): boolean => isPublicListing(state.skill) && !awaitsObservation(state);

interface HeldIndex<T> {
  list: SortedJsonList<T>;
  etag?: string;
  /** The document's bytes as the bucket holds them, when known. */
  bytes?: string;
}

const parseCatalog = (text: string) => catalogList(text ? (JSON.parse(text) as CatalogDocument).skills : []);
const parseDiscovery = (text: string) => discoveryList(text ? (JSON.parse(text) as DiscoveryDocument).skills : []);

/** Up to this many unknown bundles are looked up one by one; more, and the skill's folder is listed. */
const HEAD_BUNDLES_AT_MOST = 4;

/** Puts `slug`'s entry in `previous` into `list`, unless the list has one already. */
function keepEntry<T>(list: SortedJsonList<T>, previous: SortedJsonList<T>, slug: string): void {
  const entry = previous.get(slug);
  if (entry && !list.get(slug)) list.set(entry);
}

/** The versions a versions document lists; none when it is unreadable (damaged: the HEADs or the listing decide). */
function versionsListed(bytes: Uint8Array): string[] {
  try {
    const { versions } = JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<VersionsDocument>;
    return Array.isArray(versions) ? versions.map((v) => v?.version).filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

function md5(body: string): string {
  return createHash('md5').update(body).digest('hex');
}

/**
 * Whether the bucket's `keys.json` lists the key the registry signs with now, and says it signs in
 * the current format. When it does not (a store older than signatures or than format 2, or a new
 * key), versions are unsigned or signed otherwise, and the full rebuild signs them and writes the keys.
 */
export async function signingKeysCurrent(deps: Pick<Deps, 'staticStore' | 'signer'>): Promise<boolean> {
  const [found, active] = await Promise.all([deps.staticStore.getIfChanged(SIGNING_KEYS_KEY), deps.signer.activeKey()]);
  if (!found || found === 'unchanged') return false;
  try {
    const { keys, signatureFormat } = JSON.parse(Buffer.from(found.bytes).toString('utf8')) as { keys?: { keyid?: unknown }[]; signatureFormat?: unknown };
    return Array.isArray(keys) && keys.some((k) => k?.keyid === active.keyid) && signatureFormat === SIGNATURE_FORMAT;
  } catch {
    return false;
  }
}
