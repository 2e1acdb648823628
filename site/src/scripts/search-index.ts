import type { AsPlainObject } from 'minisearch';
import { loadSkillsIndex, loadTextIndex, type SearchHeadFile, type TextIndex } from '#core/search/index-files';
import type { LoadedSearchIndex } from '#core/search/query';
import { SEARCH_HEAD_KEY } from '#core/static-paths';

/**
 * The static search index (docs/search.md) as the browser loads it: the head first (the most
 * installed skills: the first results come from it alone), then the other skills shards, then
 * the `SKILL.md` text shards, each announced with `onChange` so the results can be searched again
 * as they arrive. Files are revalidated rather than taken from the cache, so a skill published
 * since the page was built is found too.
 */
export class SearchIndexLoader {
  /** What has arrived so far; a new object each time, so per-index caches follow. */
  index: LoadedSearchIndex = { skills: [], text: [], maxInstalls: 0 };
  /** Whether every file has arrived. */
  complete = false;
  private head?: Promise<void>;

  constructor(
    private readonly onChange: () => void = () => {},
    private readonly base = '',
  ) {}

  /** Resolves once the head is loaded (the rest keeps loading); rejects if the head cannot be. */
  load(): Promise<void> {
    this.head ??= this.loadHead().catch((error: unknown) => {
      this.head = undefined;
      throw error;
    });
    return this.head;
  }

  private async loadHead(): Promise<void> {
    const { index, ...header } = await this.json<SearchHeadFile>(`/${SEARCH_HEAD_KEY}`);
    const head = loadSkillsIndex(index);
    this.index = { skills: [head], text: [], maxInstalls: header.maxInstalls };
    this.onChange();
    void this.loadRest(header.shards).catch(() => undefined);
  }

  private async loadRest(shards: SearchHeadFile['shards']): Promise<void> {
    const skills = await Promise.all(shards.skills.map(async (path) => loadSkillsIndex((await this.json<{ index: AsPlainObject }>(path)).index)));
    if (skills.length > 0) {
      this.index = { ...this.index, skills: [...this.index.skills, ...skills] };
      this.onChange();
    }
    const text: TextIndex[] = [];
    await Promise.all(
      shards.text.map(async (path) => {
        text.push(loadTextIndex((await this.json<{ index: AsPlainObject }>(path)).index));
      }),
    );
    this.index = { ...this.index, text };
    this.complete = true;
    this.onChange();
  }

  private async json<T>(path: string): Promise<T> {
    const res = await fetch(this.base + path, { cache: 'no-cache' });
    if (!res.ok) throw new Error(`${path}: ${res.status}`);
    return (await res.json()) as T;
  }
}
