/**
 * Runs a job after requests pause: `request()` (re)starts a `debounceMs` wait, capped at
 * `maxWaitMs` after the first request not yet served, so a steady stream of requests cannot
 * postpone the job forever. One run at a time; requests during a run cause one more run after
 * it. A failed run is reported and not retried: the next request runs it again.
 */
export interface DebouncedJobOptions {
  debounceMs: number;
  maxWaitMs: number;
  onError?: (error: unknown) => void;
}

export class DebouncedJob {
  private pendingSince?: number;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly job: () => Promise<void>,
    private readonly options: DebouncedJobOptions,
  ) {}

  /** Asks for a run after the debounce (`delayMs` overrides it, e.g. 0 for "as soon as possible"). */
  request(delayMs = this.options.debounceMs): void {
    if (this.stopped) return;
    this.pendingSince ??= Date.now();
    this.schedule(delayMs);
  }

  /** Resolves when nothing is pending or running. */
  idle(): Promise<void> {
    if (!this.running && this.pendingSince === undefined) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Cancels what is pending and waits for a running job (the caller aborts it). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pendingSince = undefined;
    await this.running;
    this.settle();
  }

  private schedule(delayMs: number): void {
    if (this.running || this.pendingSince === undefined) return; // scheduled again when the run ends
    clearTimeout(this.timer);
    const latest = this.pendingSince + this.options.maxWaitMs - Date.now();
    this.timer = setTimeout(() => this.run(), Math.max(0, Math.min(delayMs, latest)));
    this.timer.unref();
  }

  private run(): void {
    this.timer = undefined;
    if (this.running || this.stopped) return;
    this.pendingSince = undefined;
    this.running = this.job().catch((error: unknown) => {
      if (!this.stopped) this.options.onError?.(error);
    });
    void this.running.finally(() => {
      this.running = undefined;
      if (this.pendingSince !== undefined && !this.stopped) this.schedule(this.options.debounceMs);
      this.settle();
    });
  }

  private settle(): void {
    if (this.running || this.pendingSince !== undefined) return;
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}
