import type { FailingRebuild } from '#core/schemas';
import type { Logger } from '#functions/platform/log';
import { failureFields, type SkillFailure, skillFailure } from '#functions/rebuild/skill-failure';

/**
 * The two halves of a rebuild, as the local trigger runs them. Each works skill by skill and
 * names the skills it could not rebuild; the others go on.
 */
export interface RebuildStages<S> {
  /** Rebuilds the skills' own files; gives, by skill id, what the index stage needs of each skill rebuilt, and the skills that failed. */
  files(skillIds: string[]): Promise<{ rebuilt: Map<string, S>; failed: SkillFailure[] }>;
  /** Patches those skills' entries into the shared indexes; gives the skills whose entries it could not set. */
  indexes(states: S[]): Promise<SkillFailure[]>;
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
  /** A failed skill is retried after 100 ms, then twice as long after each failure, up to this: 30 s unless set. */
  maxBackoffMs?: number;
  /** Told the failing skills (see {@link LocalRebuildTrigger.failing}) whenever they change. */
  onFailingChanged?: (failing: FailingRebuild[]) => void;
}

/**
 * The local stand-in for the DynamoDB stream (dynalite has none). Committed writes name the
 * skills they changed; a first stage rebuilds those skills' own files (bundles, registry
 * documents), a second patches them into the catalog and the discovery index. Each stage runs
 * one run at a time for everything handed to it since its last, so a burst of writes coalesces
 * into few runs; a skill's files are always in the bucket before its index entries.
 *
 * A skill that fails in a stage is retried on its own, with backoff, until it succeeds: nothing
 * committed is left unbuilt, and one skill that cannot be rebuilt (a key the bucket refuses, a
 * damaged item) never holds up the others, which go on to the index stage and are indexed. The
 * skills failing meanwhile are {@link failing} (`/api/health` reports them).
 */
export class LocalRebuildTrigger<S> {
  private readonly files: Stage<string>;
  private readonly indexes: Stage<S>;

  constructor(stages: RebuildStages<S>, log: Logger, options: LocalRebuildTriggerOptions = {}) {
    const { indexIntervalMs = 0, burstIndexIntervalMs = indexIntervalMs, burstSkills = 2, maxBackoffMs = 30_000, onFailingChanged } = options;
    const indexPace = (lastRun: number) => (lastRun > burstSkills ? burstIndexIntervalMs : indexIntervalMs);
    const changed = onFailingChanged && (() => onFailingChanged(this.failing()));
    this.indexes = new Stage('indexes', (batch) => stages.indexes([...batch.values()]), { log, intervalMs: indexPace, maxBackoffMs, changed });
    this.files = new Stage(
      'files',
      async (batch) => {
        const { rebuilt, failed } = await stages.files([...batch.keys()]);
        this.indexes.add(rebuilt);
        return failed;
      },
      { log, intervalMs: () => 0, maxBackoffMs, changed },
    );
  }

  /** Notes that these skills changed; their files are rebuilt at once unless a run is under way. */
  enqueue(skillIds: string[]): void {
    this.files.add(new Map(skillIds.map((id) => [id, id])));
  }

  /** Skills another rebuild (the full rebuild at a start) could not rebuild: retried with backoff, as if they had failed here. */
  retry(failures: SkillFailure[]): void {
    this.files.failed(new Map(failures.map((f) => [f.skillId, f.skillId])), failures);
  }

  /** The skills whose last rebuild failed in either stage, the longest failing first. */
  failing(): FailingRebuild[] {
    return [...this.files.failing(), ...this.indexes.failing()].sort((a, b) => a.since.localeCompare(b.since));
  }

  /**
   * Resolves when both stages have nothing pending, running or waiting for a retry (tests,
   * benchmarks, shutdown): while a skill keeps failing, it does not resolve.
   */
  async idle(): Promise<void> {
    await this.files.idle();
    await this.indexes.idle();
  }

  stop(): void {
    this.files.stop();
    this.indexes.stop();
  }
}

interface StageOptions {
  log: Logger;
  /** The least time from one run's start to the next's, given how many items the last run took. */
  intervalMs: (lastRun: number) => number;
  maxBackoffMs: number;
  /** The set of failing skills, or what is known of one, changed. */
  changed?: () => void;
}

/** A skill whose last run in a stage failed. */
interface Failing<T> {
  failure: SkillFailure;
  attempts: number;
  since: string;
  /** What to run again once the backoff is over; undefined while newer work for the skill is pending or running. */
  retry?: { item: T; timer: NodeJS.Timeout };
}

/**
 * One stage: pending work by skill id (the latest wins), one run at a time; each skill that a run
 * fails is retried on its own with backoff, and the others are done.
 */
class Stage<T> {
  private pending = new Map<string, T>();
  private running?: Promise<void>;
  private readonly failures = new Map<string, Failing<T>>();
  /** A start held back by the interval. */
  private timer?: NodeJS.Timeout;
  private lastStart = -Infinity;
  /** How many items the last run took. */
  private lastRun = 0;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly name: 'files' | 'indexes',
    /** Runs a batch (by skill id); gives the skills that failed. Throwing fails the whole batch. */
    private readonly work: (batch: Map<string, T>) => Promise<SkillFailure[]>,
    private readonly options: StageOptions,
  ) {}

  add(items: Map<string, T>): void {
    for (const [key, item] of items) {
      this.pending.set(key, item);
      // Newer work for a failing skill goes at once and stands for its retry: a write may be what repairs it.
      this.cancelRetry(key);
    }
    if (!this.timer) this.pump();
  }

  /** Records that the skills of `batch` failed as `failed` says, and schedules each one's retry. */
  failed(batch: Map<string, T>, failed: SkillFailure[]): void {
    this.record(batch, failed);
    if (failed.length > 0) this.options.changed?.();
  }

  failing(): FailingRebuild[] {
    return [...this.failures.values()].map(({ failure, attempts, since }) => ({ ...failure, stage: this.name, attempts, since }));
  }

  idle(): Promise<void> {
    if (!this.busy()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  stop(): void {
    clearTimeout(this.timer);
    for (const key of this.failures.keys()) this.cancelRetry(key);
  }

  private busy(): boolean {
    return this.running !== undefined || this.pending.size > 0 || [...this.failures.values()].some((f) => f.retry);
  }

  private record(batch: Map<string, T>, failed: SkillFailure[]): void {
    const now = new Date().toISOString();
    for (const failure of failed) {
      const item = batch.get(failure.skillId);
      if (item === undefined) continue;
      const known = this.failures.get(failure.skillId);
      this.cancelRetry(failure.skillId);
      const attempts = (known?.attempts ?? 0) + 1;
      const delay = Math.min(this.options.maxBackoffMs, 50 * 2 ** Math.min(attempts, 10));
      const entry: Failing<T> = { failure: { ...failure, slug: failure.slug ?? known?.failure.slug }, attempts, since: known?.since ?? now };
      // Newer work for the same skill, handed over meanwhile, supersedes the failed item.
      if (!this.pending.has(failure.skillId)) entry.retry = { item, timer: this.after(delay, () => this.retryNow(failure.skillId)) };
      this.failures.set(failure.skillId, entry);
      this.options.log.error('rebuild of a skill failed; will retry', {
        stage: this.name,
        ...failureFields(entry.failure),
        attempt: attempts,
        retryInMs: delay,
      });
    }
  }

  private pump(): void {
    if (this.running || this.pending.size === 0) return;
    const wait = this.lastStart + this.options.intervalMs(this.lastRun) - performance.now();
    if (wait > 0) {
      this.timer = this.after(wait, () => {
        this.timer = undefined;
        this.pump();
      });
      return;
    }
    this.lastStart = performance.now();
    const batch = this.pending;
    this.pending = new Map();
    this.lastRun = batch.size;
    this.running = this.work(batch).then(
      (failed) => this.settle(batch, failed),
      // The run as a whole failed (the index lock, the catalog write): every skill in it did.
      (error: unknown) =>
        this.settle(
          batch,
          [...batch.keys()].map((skillId) => skillFailure({ skillId }, error)),
        ),
    );
    void this.running.finally(() => {
      this.running = undefined;
      if (!this.timer) this.pump();
      if (!this.busy()) for (const resolve of this.waiters.splice(0)) resolve();
    });
  }

  /** After a run: the skills that failed wait for their retry, and those that had failed before and did not are well again. */
  private settle(batch: Map<string, T>, failed: SkillFailure[]): void {
    const failedIds = new Set(failed.map((f) => f.skillId));
    let recovered = false;
    for (const key of batch.keys()) {
      const known = this.failures.get(key);
      if (!known || failedIds.has(key)) continue;
      this.failures.delete(key);
      recovered = true;
      this.options.log.info('rebuild of a skill recovered', { stage: this.name, skillId: key, slug: known.failure.slug, attempts: known.attempts });
    }
    this.record(batch, failed);
    if (recovered || failed.length > 0) this.options.changed?.();
  }

  private retryNow(key: string): void {
    const failing = this.failures.get(key);
    if (!failing?.retry) return;
    this.pending.set(key, failing.retry.item);
    failing.retry = undefined;
    if (!this.timer) this.pump();
  }

  private cancelRetry(key: string): void {
    const failing = this.failures.get(key);
    if (!failing?.retry) return;
    clearTimeout(failing.retry.timer);
    failing.retry = undefined;
  }

  private after(delayMs: number, then: () => void): NodeJS.Timeout {
    const timer = setTimeout(then, delayMs);
    timer.unref();
    return timer;
  }
}
