import { SEARCH_HEAD_KEY } from '#core/static-paths';
import { loadSkillsIndex, loadTextIndex, type SearchHeadFile, type SearchShardFile, type SkillsIndex, type TextIndex } from '#core/search/index-files';
import type { LoadedSearchIndex } from '#core/search/query';
import type { StaticStore } from './static-store.ts';

/**
 * The search index (core/search/index-files.ts) as the rebuild last wrote it, loaded whole for
 * the API's searches: the same files, and the same ranking, as the site's search in the browser.
 * The head is read again at most every `maxAgeMs`, conditionally (unchanged, it costs a 304 and
 * no parse), so a write shows within about a second plus the rebuild's own delay. The head names
 * each shard with the ETag it was written with: a shard held with that ETag is current and is
 * not asked for, so a check is one request however many shards there are (a search after an
 * idle second used to wait for a conditional read of every file).
 */
export class SearchReader {
  private held?: { index: LoadedSearchIndex; checkedAt: number };
  private readonly files = new Map<string, HeldFile>();
  private reading?: Promise<LoadedSearchIndex>;

  constructor(
    private readonly store: StaticStore,
    private readonly maxAgeMs = 1000,
  ) {}

  /** The index; empty until the first rebuild has written one. */
  index(): Promise<LoadedSearchIndex> {
    if (this.held && performance.now() - this.held.checkedAt < this.maxAgeMs) return Promise.resolve(this.held.index);
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<LoadedSearchIndex> {
    const checkedAt = performance.now();
    const heldHead = this.files.get(SEARCH_HEAD_KEY);
    const head = await this.file(SEARCH_HEAD_KEY, (text) => {
      const { index, ...file } = JSON.parse(text) as SearchHeadFile;
      return { index: loadSkillsIndex(index), head: file };
    });
    if (this.held && head !== undefined && head === heldHead) {
      this.held = { index: this.held.index, checkedAt };
      return this.held.index;
    }
    if (!head?.head) {
      const index = { skills: [], text: [], maxInstalls: 0 };
      this.held = { index, checkedAt };
      return index;
    }
    const { shards, maxInstalls, etags = {} } = head.head;
    const load = (paths: string[], parse: (text: string) => { index: SkillsIndex | TextIndex }) =>
      Promise.all(paths.map((path) => this.file(path.slice(1), parse, etags[path])));
    const [skills, text] = await Promise.all([
      load(shards.skills, (t) => ({ index: loadSkillsIndex((JSON.parse(t) as SearchShardFile).index) })),
      load(shards.text, (t) => ({ index: loadTextIndex((JSON.parse(t) as SearchShardFile).index) })),
    ]);
    const previous = this.held?.index;
    const next: LoadedSearchIndex = {
      skills: [head.index as SkillsIndex, ...skills.flatMap((s) => (s ? [s.index as SkillsIndex] : []))],
      text: text.flatMap((s) => (s ? [s.index as TextIndex] : [])),
      maxInstalls,
    };
    // The same shards as before: keep the object, so what is cached per index (its vocabulary) stays.
    const same =
      previous &&
      previous.skills.length === next.skills.length &&
      previous.skills.every((s, i) => s === next.skills[i]) &&
      previous.text.every((s, i) => s === next.text[i]);
    const index = same && previous.text.length === next.text.length ? previous : next;
    this.held = { index, checkedAt };
    return index;
  }

  /**
   * A file of the index, parsed, reusing what was parsed while its ETag holds (without asking
   * when `current`, the ETag the head names, is the one held); undefined when missing or damaged.
   */
  private async file(
    key: string,
    parse: (text: string) => { index: SkillsIndex | TextIndex; head?: Omit<SearchHeadFile, 'index'> },
    current?: string,
  ): Promise<HeldFile | undefined> {
    const known = this.files.get(key);
    if (known && current !== undefined && known.etag === current) return known;
    const found = await this.store.getIfChanged(key, known?.etag);
    if (found === 'unchanged' && known) return known;
    if (!found || found === 'unchanged') {
      this.files.delete(key);
      return undefined;
    }
    try {
      const parsed = { ...parse(Buffer.from(found.bytes).toString('utf8')), ...(found.etag ? { etag: found.etag } : {}) };
      this.files.set(key, parsed);
      return parsed;
    } catch {
      return undefined; // a damaged file reads as missing until the rebuild writes it again
    }
  }
}

/** A file of the index as parsed, with the ETag it was read with. */
interface HeldFile {
  etag?: string;
  index: SkillsIndex | TextIndex;
  head?: Omit<SearchHeadFile, 'index'>;
}

/** One reader per static bucket (tests run several services in one process). */
const readers = new WeakMap<StaticStore, SearchReader>();

/** The search index of `store`, through the one reader kept for it. */
export function searchIndex(store: StaticStore): Promise<LoadedSearchIndex> {
  let reader = readers.get(store);
  if (!reader) {
    reader = new SearchReader(store);
    readers.set(store, reader);
  }
  return reader.index();
}
