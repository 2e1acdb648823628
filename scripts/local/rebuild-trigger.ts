import { errorFields, type Logger } from '../../functions/platform/log.ts';

/** The two halves of a rebuild, as the local trigger runs them. */
export interface RebuildStages<S> {
  /** Rebuilds the skills' own files; gives, by skill id, what the index stage needs of each. */
  files(skillIds: string[]): Promise<Map<string, S>>;
  /** Patches those skills' entries into the shared indexes. */
  indexes(states: S[]): Promise<void>;
}

export interface LocalRebuildTriggerOptions {
  /**
   * The index stage starts at most this often. A write after a quiet spell is indexed at once;
   * in a burst, each run patches every skill rebuilt since the last, instead of rewriting both
   * indexes (hundreds of kB each, at 1,000 skills) for every write.
   */
  indexIntervalMs?: number;
  /**
   * While writes keep coming, the index stage starts at most this often instead. A run that
   * patched more than {@link burstSkills} skills shows that writes arrive faster than the short
   * interval takes them one by one; the run after it waits this long from its start. A burst then
   * costs a few index writes a second, and the first write after one is indexed within this time.
   */
  burstIndexIntervalMs?: number;
  /** See {@link burstIndexIntervalMs}: 2 unless set. */
  burstSkills?: number;
  maxBackoffMs?: number;
}

/**
 * The local stand-in for the DynamoDB stream (dynalite has none). Committed writes name the
 * skills they changed; a first stage rebuilds those skills' own files (bundles, registry
 * documents), a second patches them into the catalog and the discovery index. Each stage runs
 * one run at a time for everything handed to it since its last, so a burst of writes coalesces
 * into few runs; a skill's files are always in the bucket before its index entries. A failed
 * run keeps its work pending and is retried with backoff until it succeeds: nothing committed
 * is left unbuilt.
 */
export class LocalRebuildTrigger<S> {
  private readonly files: Stage<string>;
  private readonly indexes: Stage<S>;

  constructor(stages: RebuildStages<S>, log: Logger, options: LocalRebuildTriggerOptions = {}) {
    const { indexIntervalMs = 0, burstIndexIntervalMs = indexIntervalMs, burstSkills = 2, maxBackoffMs = 30_000 } = options;
    const indexPace = (lastRun: number) => (lastRun > burstSkills ? burstIndexIntervalMs : indexIntervalMs);
    this.indexes = new Stage('indexes', (states) => stages.indexes(states), log, indexPace, maxBackoffMs);
    this.files = new Stage('files', async (ids) => this.indexes.add(await stages.files(ids)), log, () => 0, maxBackoffMs);
  }

  /** Notes that these skills changed; their files are rebuilt at once unless a run is under way. */
  enqueue(skillIds: string[]): void {
    this.files.add(new Map(skillIds.map((id) => [id, id])));
  }

  /** Resolves when both stages have nothing pending or running (tests, benchmarks, shutdown). */
  async idle(): Promise<void> {
    await this.files.idle();
    await this.indexes.idle();
  }

  stop(): void {
    this.files.stop();
    this.indexes.stop();
  }
}

/** One stage: pending work by skill id (the latest wins), one run at a time, retried with backoff. */
class Stage<T> {
  private pending = new Map<string, T>();
  private running?: Promise<void>;
  private failures = 0;
  /** A retry after a failure, or a start held back by the interval. */
  private timer?: NodeJS.Timeout;
  private lastStart = -Infinity;
  /** How many items the last run took. */
  private lastRun = 0;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly name: string,
    private readonly work: (items: T[]) => Promise<void>,
    private readonly log: Logger,
    /** The least time from one run's start to the next's, given how many items the last run took. */
    private readonly intervalMs: (lastRun: number) => number,
    private readonly maxBackoffMs: number,
  ) {}

  add(items: Map<string, T>): void {
    for (const [key, item] of items) this.pending.set(key, item);
    if (!this.timer) this.pump();
  }

  idle(): Promise<void> {
    if (!this.running && this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private pump(): void {
    if (this.running || this.pending.size === 0) return;
    const wait = this.lastStart + this.intervalMs(this.lastRun) - performance.now();
    if (wait > 0) return this.after(wait);
    this.lastStart = performance.now();
    const batch = this.pending;
    this.pending = new Map();
    this.lastRun = batch.size;
    this.running = this.work([...batch.values()]).then(
      () => {
        this.failures = 0;
      },
      (error: unknown) => {
        // Newer work for the same skill, handed over meanwhile, supersedes the failed item.
        for (const [key, item] of batch) if (!this.pending.has(key)) this.pending.set(key, item);
        this.failures += 1;
        const delay = Math.min(this.maxBackoffMs, 50 * 2 ** Math.min(this.failures, 10));
        this.log.error('rebuild failed; will retry', { stage: this.name, skills: batch.size, attempt: this.failures, retryInMs: delay, ...errorFields(error) });
        this.after(delay);
      },
    );
    void this.running.finally(() => {
      this.running = undefined;
      if (!this.timer) this.pump();
      if (!this.running && this.pending.size === 0) for (const resolve of this.waiters.splice(0)) resolve();
    });
  }

  private after(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, delayMs);
    this.timer.unref();
  }
}
