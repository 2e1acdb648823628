import { errorFields, type Logger } from '../log.ts';

/**
 * The local stand-in for the DynamoDB stream (dynalite has none): committed writes name the
 * skills they changed, and one rebuild at a time runs for everything named since the last one,
 * so a burst of writes coalesces into few rebuilds. A failed rebuild keeps its skills pending
 * and is retried with backoff until it succeeds; nothing committed is left unbuilt.
 */
export class LocalRebuildTrigger {
  private pending = new Set<string>();
  private running?: Promise<void>;
  private failures = 0;
  private retryTimer?: NodeJS.Timeout;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly rebuild: (skillIds: string[]) => Promise<void>,
    private readonly log: Logger,
    private readonly maxBackoffMs = 30_000,
  ) {}

  /** Notes that these skills changed; the rebuild starts at once unless one is running. */
  enqueue(skillIds: string[]): void {
    for (const id of skillIds) this.pending.add(id);
    if (!this.retryTimer) this.pump();
  }

  /** Resolves when nothing is pending or running (tests, benchmarks, shutdown). */
  idle(): Promise<void> {
    if (!this.running && this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  stop(): void {
    clearTimeout(this.retryTimer);
  }

  private pump(): void {
    if (this.running || this.pending.size === 0) return;
    const batch = [...this.pending];
    this.pending.clear();
    this.running = this.rebuild(batch).then(
      () => {
        this.failures = 0;
      },
      (error: unknown) => {
        for (const id of batch) this.pending.add(id);
        this.failures += 1;
        const delay = Math.min(this.maxBackoffMs, 50 * 2 ** Math.min(this.failures, 10));
        this.log.error('rebuild failed; will retry', { skills: batch.length, attempt: this.failures, retryInMs: delay, ...errorFields(error) });
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          this.pump();
        }, delay);
        this.retryTimer.unref();
      },
    );
    void this.running.finally(() => {
      this.running = undefined;
      if (!this.retryTimer) this.pump();
      if (!this.running && this.pending.size === 0) for (const resolve of this.waiters.splice(0)) resolve();
    });
  }
}
