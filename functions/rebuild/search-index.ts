import { gzipSync } from 'node:zlib';
import type { Options } from 'minisearch';
import type { CatalogEntry } from '#core/catalog';
import { canonicalJson } from '#core/canonical-json';
import { mapLimit } from '#core/map-limit';
import { type InstallsDocument, installsOf } from '#core/public-installs';
import { popularity, type SearchDocument, type SearchText, searchDocument } from '#core/search/documents';
import { SEARCH_SCHEMA_VERSION, type SearchHeadFile, type SearchShardFile, shardOf, skillsIndexOptions, textIndexOptions } from '#core/search/index-files';
import { IndexShard } from '#core/search/index-shard';
import { skillText } from '#core/search/skill-text';
import { INSTALLS_KEY, SEARCH_HEAD_KEY, skillsShardKey, textShardKey } from '#core/static-paths';
import { getBlob } from '../content/blobs.ts';
import type { Deps } from '../platform/composition.ts';
import { withLock } from '../store/locks.ts';

/**
 * Writes the search index (core/search/index-files.ts) as the rebuild changes skills: a write
 * patches the shards that hold its skills (the head, or the skills shard its slug hashes to, and
 * its text shard), each held as an {@link IndexShard} that re-serialises only the entries its
 * skills change, so its cost does not grow with the catalog; the listings are re-tiered by
 * popularity when the public install counts are rewritten; the full rebuild lays it all out
 * again, rewriting only the shards whose skills changed. The head names each shard with the
 * ETag it was written with, so a reader checks the head alone. Callers hold the
 * `static-indexes` lock, as for the catalog, and pass its memo: files whose ETag it names as
 * this process's last write are not asked for again.
 */

/**
 * Sizes of the shards, in skills, from `npm run bench search`: the head holds the 2,000 most
 * installed skills, or as many of them as fit in `headBytes` gzipped (a real skill's listing is
 * ~90 bytes gzipped in the index, a long one twice that), so a browser shows the first results
 * after one small download; the other listings split 2,000 to a shard, and the `SKILL.md` texts
 * (~240 bytes gzipped each) in shards a third of that. A shard that has grown to twice its size
 * since the last layout is split at the next write; the head's bytes are checked at each layout
 * (the full rebuild, and each re-tiering by installs).
 */
export const SHARD_SIZES = { head: 2000, skills: 2000, text: 700, headBytes: 180 * 1024 };

/** What a rebuild knows of a skill for the index: its catalog entry (none when it left the catalog) and its `SKILL.md`. */
export interface SearchChange {
  slug: string;
  entry?: CatalogEntry;
  /** The current version's `SKILL.md` of a free skill. */
  skillMd?: { version: string; sha256: string };
}

interface Held<T> {
  index: T;
  etag?: string;
}

type Header = Omit<SearchHeadFile, 'index'>;
type SkillsShard = IndexShard<SearchDocument>;
type TextShard = IndexShard<SearchText>;
type Store = Pick<Deps, 'staticStore' | 'blobs' | 'log'>;
/** A text shard's skills as the layout wants them: which `SKILL.md` each is indexed from. */
type TextSource = Omit<SearchText, 'text'>;

export class SearchIndexWriter {
  private head?: Held<SkillsShard> & { header: Header };
  private readonly shards = new Map<string, Held<SkillsShard | TextShard>>();
  /** The lock's memo for the run in progress: ETags the last holder wrote. */
  private lastWritten?: Record<string, string>;

  constructor(
    private readonly deps: Store,
    private readonly sizes = SHARD_SIZES,
  ) {}

  /** The ETags of the files as this process last wrote or read them, for the lock's memo. */
  etags(): Record<string, string> {
    const etags: Record<string, string> = {};
    if (this.head?.etag) etags[SEARCH_HEAD_KEY] = this.head.etag;
    for (const [key, shard] of this.shards) if (shard.etag) etags[key] = shard.etag;
    return etags;
  }

  /** Forgets what it holds: after a failed run, the bucket may differ from it. */
  forget(): void {
    this.head = undefined;
    this.shards.clear();
  }

  /** Patches the index for the changed skills, keeping each skill's popularity as it was. */
  async patch(changes: readonly SearchChange[], lastWritten?: Record<string, string>): Promise<void> {
    if (changes.length === 0) return;
    this.lastWritten = lastWritten;
    const head = await this.loadHead();
    const texts = new Map((await this.readTexts(textSources(changes))).map((t) => [t.slug, t]));
    const touched = new Set<string>();
    let maxInstalls = head.header.maxInstalls;
    for (const change of changes) {
      const inHead = head.index.has(change.slug) || head.header.shards.skills.length === 0;
      const shardKey = inHead ? undefined : keyOfPath(head.header.shards.skills[shardOf(change.slug, head.header.shards.skills.length)]!);
      const shard = shardKey === undefined ? head.index : await this.loadSkills(shardKey);
      const before = shard.stored(change.slug) as Pick<SearchDocument, 'installs'> | undefined;
      if (change.entry) {
        const doc = searchDocument(change.entry, before?.installs ?? 0);
        shard.set(doc);
        maxInstalls = Math.max(maxInstalls, doc.installs);
        if (!before) head.header.skills += 1;
      } else if (before) {
        shard.remove(change.slug);
        head.header.skills -= 1;
      }
      if (shardKey !== undefined) touched.add(shardKey);

      if (head.header.shards.text.length === 0) head.header.shards.text.push(`/${textShardKey(0)}`);
      const textKey = keyOfPath(head.header.shards.text[shardOf(change.slug, head.header.shards.text.length)]!);
      const text = await this.loadText(textKey);
      const found = texts.get(change.slug);
      if (found) text.set(found);
      else text.remove(change.slug);
      touched.add(textKey);
    }
    head.header.maxInstalls = maxInstalls;
    await Promise.all([...touched].map((key) => this.writeShard(key)));
    await this.writeHead();
    if (this.oversized()) await this.layOut(await this.listings(), await this.heldTextSources());
  }

  /**
   * Re-tiers the listings by the public install counts as they stand: the most installed go to
   * the head, the rest to skills shards by slug. The texts stay where they are.
   */
  async relayout(lastWritten?: Record<string, string>): Promise<void> {
    this.lastWritten = lastWritten;
    await this.loadHead();
    const installs = await this.readInstalls();
    const listed = (await this.listings()).map((doc) => ({ ...doc, installs: installs ? popularity(installsOf(installs, doc.slug)) : doc.installs }));
    await this.layOut(listed);
  }

  /**
   * Lays the whole index out for the catalog's entries (the full rebuild), popularity from the
   * public install counts; only the shards whose skills changed are rewritten, and only their
   * `SKILL.md` files are read. It is the repair path: every file is checked against the bucket.
   */
  async writeAll(changes: readonly SearchChange[]): Promise<void> {
    this.lastWritten = undefined;
    await this.loadHead();
    const installs = await this.readInstalls();
    const listed = changes.filter((c) => c.entry).map((c) => searchDocument(c.entry!, popularity(installsOf(installs, c.slug))));
    await this.layOut(listed, textSources(changes));
  }

  /**
   * Writes the listings tiered by popularity and, when `texts` are given, the texts in as many
   * shards as they need. A shard that would hold exactly what it holds is left as it is.
   */
  private async layOut(listed: SearchDocument[], texts?: TextSource[]): Promise<void> {
    const { sizes } = this;
    const byPopularity = [...listed].sort((a, b) => b.installs - a.installs || compare(b.updatedAt, a.updatedAt) || compare(a.slug, b.slug));
    const { docs: headDocs, index: headIndex } = fittedHead(byPopularity, sizes);
    const rest = byPopularity.slice(headDocs.length);
    const skillShards = Math.ceil(rest.length / sizes.skills);
    const skillPaths: string[] = [];
    for (let n = 0; n < skillShards; n++) {
      const key = skillsShardKey(n);
      skillPaths.push(`/${key}`);
      const docs = bySlug(rest.filter((doc) => shardOf(doc.slug, skillShards) === n));
      const held = await this.loadSkills(key);
      if (sameListings(held, docs)) continue;
      this.shards.set(key, { index: IndexShard.of(skillsIndexOptions, docs) });
      await this.writeShard(key);
    }
    const header = this.head!.header;
    let textPaths = header.shards.text;
    if (texts) {
      const textShards = Math.max(1, Math.ceil(texts.length / sizes.text));
      textPaths = [];
      for (let n = 0; n < textShards; n++) {
        const key = textShardKey(n);
        textPaths.push(`/${key}`);
        const sources = bySlug(texts.filter((t) => shardOf(t.slug, textShards) === n));
        const held = await this.loadText(key);
        if (sameTexts(held, sources)) continue;
        this.shards.set(key, { index: IndexShard.of(textIndexOptions, await this.readTexts(sources)) });
        await this.writeShard(key);
      }
    }
    const next: Header = {
      schemaVersion: SEARCH_SCHEMA_VERSION,
      skills: listed.length,
      maxInstalls: Math.max(0, ...listed.map((d) => d.installs)),
      shards: { skills: skillPaths, text: textPaths },
      etags: this.shardEtags([...skillPaths, ...textPaths]),
    };
    if (sameListings(this.head!.index, headDocs) && canonicalJson(next) === canonicalJson(header) && this.head!.etag !== undefined) return;
    this.head = { index: headIndex, header: next };
    await this.writeHead();
  }

  /** Every listing in the head and the skills shards. */
  private async listings(): Promise<SearchDocument[]> {
    const docs = storedDocuments(this.head!.index);
    for (const path of this.head!.header.shards.skills) docs.push(...storedDocuments(await this.loadSkills(keyOfPath(path))));
    return docs;
  }

  /** The ETags of the shards at `paths` as this process last wrote or read them (else as the head names them), by path. */
  private shardEtags(paths: readonly string[]): Record<string, string> {
    const etags: Record<string, string> = {};
    for (const path of paths) {
      const etag = this.shards.get(keyOfPath(path))?.etag ?? this.head?.header.etags[path];
      if (etag !== undefined) etags[path] = etag;
    }
    return etags;
  }

  /** Which `SKILL.md` each skill in the text shards is indexed from. */
  private async heldTextSources(): Promise<TextSource[]> {
    const sources: TextSource[] = [];
    for (const path of this.head!.header.shards.text) sources.push(...textSourcesOf(await this.loadText(keyOfPath(path))));
    return sources;
  }

  private oversized(): boolean {
    const { header, index } = this.head!;
    const over = (paths: string[], size: number) => paths.some((path) => (this.shards.get(keyOfPath(path))?.index.documentCount ?? 0) > 2 * size);
    if (header.shards.skills.length === 0 && index.documentCount > 2 * this.sizes.head) return true;
    return over(header.shards.skills, this.sizes.skills) || over(header.shards.text, this.sizes.text);
  }

  private readTexts(sources: readonly TextSource[]): Promise<SearchText[]> {
    return mapLimit([...sources], 16, async (source) => ({
      ...source,
      text: skillText(new TextDecoder().decode(await getBlob(this.deps.blobs, source.sha256))),
    }));
  }

  private async readInstalls(): Promise<InstallsDocument | undefined> {
    const bytes = await this.deps.staticStore.get(INSTALLS_KEY);
    if (!bytes) return undefined;
    try {
      return JSON.parse(new TextDecoder().decode(bytes)) as InstallsDocument;
    } catch {
      return undefined; // damaged: popularity stays as the index has it until the next rewrite
    }
  }

  /** The head as the bucket holds it; what this process holds while the memo or the bucket's ETag says it is current. */
  private async loadHead(): Promise<NonNullable<SearchIndexWriter['head']>> {
    if (this.head?.etag !== undefined && this.lastWritten?.[SEARCH_HEAD_KEY] === this.head.etag) return this.head;
    const found = await this.deps.staticStore.getIfChanged(SEARCH_HEAD_KEY, this.head?.etag);
    if (found === 'unchanged' && this.head) return this.head;
    const parsed = found && found !== 'unchanged' ? parseFile<SearchHeadFile>(found.bytes) : undefined;
    const index = parsed && loaded(() => IndexShard.load(skillsIndexOptions, parsed.index));
    if (!parsed || !index) {
      const header: Header = { schemaVersion: SEARCH_SCHEMA_VERSION, skills: 0, maxInstalls: 0, shards: { skills: [], text: [] }, etags: {} };
      this.head = { index: IndexShard.of(skillsIndexOptions), header };
      return this.head;
    }
    const { index: _, ...header } = parsed;
    this.head = { index, header: { ...header, etags: header.etags ?? {} }, ...(found && found !== 'unchanged' && found.etag ? { etag: found.etag } : {}) };
    return this.head;
  }

  private loadSkills(key: string): Promise<SkillsShard> {
    return this.loadShard(key, skillsIndexOptions);
  }

  private loadText(key: string): Promise<TextShard> {
    return this.loadShard(key, textIndexOptions);
  }

  private async loadShard<T extends SearchDocument | SearchText>(key: string, options: Options<T>): Promise<IndexShard<T>> {
    const known = this.shards.get(key) as Held<IndexShard<T>> | undefined;
    if (known?.etag !== undefined && this.lastWritten?.[key] === known.etag) return known.index;
    const found = await this.deps.staticStore.getIfChanged(key, known?.etag);
    if (found === 'unchanged' && known) return known.index;
    const parsed = found && found !== 'unchanged' ? parseFile<SearchShardFile>(found.bytes) : undefined;
    const index = parsed && loaded(() => IndexShard.load(options, parsed.index));
    const shard: Held<IndexShard<T>> = index
      ? { index, ...(found && found !== 'unchanged' && found.etag ? { etag: found.etag } : {}) }
      : { index: IndexShard.of(options) };
    this.shards.set(key, shard as Held<SkillsShard | TextShard>);
    return shard.index;
  }

  private async writeShard(key: string): Promise<void> {
    const shard = this.shards.get(key)!;
    shard.etag = await this.deps.staticStore.put(key, `{"schemaVersion":${SEARCH_SCHEMA_VERSION},"index":${shard.index.json()}}`);
    this.head!.header.etags[`/${key}`] = shard.etag ?? '';
  }

  private async writeHead(): Promise<void> {
    const head = this.head!;
    const { header } = head;
    // Only the shards the head lists: one split or merged away is no longer read.
    header.etags = Object.fromEntries(
      [...header.shards.skills, ...header.shards.text].flatMap((path) => (header.etags[path] ? [[path, header.etags[path]]] : [])),
    );
    head.etag = await this.deps.staticStore.put(SEARCH_HEAD_KEY, `${JSON.stringify(header).slice(0, -1)},"index":${head.index.json()}}`);
  }
}

/**
 * Re-tiers the search index by the public install counts just written (before a site build),
 * under the lock the rebuild patches it under. The catalog is not touched: the lock's memo of
 * its ETags is passed on, with the search files' new ones.
 */
export async function retierSearchIndex(deps: Store & Pick<Deps, 'db'>, writer = new SearchIndexWriter(deps)): Promise<void> {
  await withLock(deps.db, 'static-indexes', async (lease) => {
    try {
      await writer.relayout(lease.previous);
    } catch (error) {
      writer.forget();
      throw error;
    }
    lease.leave({ ...lease.previous, ...writer.etags() });
  });
}

/**
 * The head's listings: the most installed, as many as `sizes.head` and as fit in
 * `sizes.headBytes` gzipped (measured, then cut in proportion until they fit), by slug.
 */
function fittedHead(byPopularity: readonly SearchDocument[], sizes: typeof SHARD_SIZES): { docs: SearchDocument[]; index: SkillsShard } {
  let count = Math.min(sizes.head, byPopularity.length);
  for (;;) {
    const docs = bySlug(byPopularity.slice(0, count));
    const index = IndexShard.of(skillsIndexOptions, docs);
    const bytes = gzipSync(index.json()).byteLength;
    if (bytes <= sizes.headBytes || count <= 1) return { docs, index };
    count = Math.max(1, Math.min(count - 1, Math.floor((count * sizes.headBytes * 0.98) / bytes)));
  }
}

function textSources(changes: readonly SearchChange[]): TextSource[] {
  return changes.filter((c) => c.entry && !c.entry.paid && c.skillMd).map((c) => ({ slug: c.slug, ...c.skillMd! }));
}

function textSourcesOf(index: TextShard): TextSource[] {
  return index.slugs().map((slug) => ({ slug, ...(index.stored(slug) as Omit<TextSource, 'slug'>) }));
}

/** Every listing a skills shard holds. */
function storedDocuments(index: SkillsShard): SearchDocument[] {
  return index.slugs().map((slug) => ({ slug, ...index.stored(slug) }) as SearchDocument);
}

/** Whether an index holds exactly these listings (by their stored fields). */
function sameListings(index: SkillsShard, docs: readonly SearchDocument[]): boolean {
  if (index.documentCount !== docs.length) return false;
  return canonicalJson(bySlug(storedDocuments(index))) === canonicalJson(docs);
}

/** Whether a text shard holds exactly these skills' `SKILL.md` files. */
function sameTexts(index: TextShard, sources: readonly TextSource[]): boolean {
  if (index.documentCount !== sources.length) return false;
  return canonicalJson(bySlug(textSourcesOf(index))) === canonicalJson(sources);
}

function parseFile<T>(bytes: Uint8Array): T | undefined {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as T;
  } catch {
    return undefined; // damaged: laid out again from what the rebuild knows
  }
}

const keyOfPath = (path: string) => path.slice(1);

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const bySlug = <T extends { slug: string }>(docs: readonly T[]): T[] => [...docs].sort((a, b) => compare(a.slug, b.slug));

/** The shard a file holds, or undefined when it is damaged (it is laid out again). */
function loaded<T>(load: () => T): T | undefined {
  try {
    return load();
  } catch {
    return undefined;
  }
}
