import { access } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { FailingRebuild } from '#core/schemas';
import type { Config } from '#functions/platform/config';
import type { RebuilderOptions, RebuildReport } from '#functions/rebuild/rebuilder';
import type { InstallCounter, InstallEvent } from '#functions/store/downloads';
import type { BackgroundWork } from './work.ts';

/**
 * The local runtime's background work in its own thread: the rebuilds that follow writes (a
 * DynamoDB stream's Lambda on AWS) and the install-count writes behind deliveries. Both are
 * storage calls, and every AWS SDK call costs ~1.5–3 ms of client CPU here; on the request
 * thread they held up the requests themselves (counted delivery at one connection ran at a tenth
 * of its uncounted rate). Here they use the machine's other core, as the stream Lambda and the
 * deliver Lambdas' own containers do on AWS.
 *
 * The thread runs the same background work as the in-process runtime ({@link backgroundWork}:
 * the Rebuilder, its trigger and the DownloadCounter), with its own SDK clients. Messages on a port keep their order, so a request that
 * waits (`idle`, `written`, `flush`) covers everything sent before it, and every static write
 * the thread made is announced (through `onWrite`) before such a request resolves.
 */

/** What the request thread sends. */
export type ToWorker =
  | { kind: 'changed'; ids: string[] }
  | { kind: 'blob'; sha256: string; bytes: Uint8Array }
  | { kind: 'counts'; counts: InstallEvent[] }
  | { kind: Request; id: number };

/** What the request thread may wait for. */
export type Request = 'idle' | 'written' | 'flush' | 'rebuildAll' | 'installs' | 'close';

/** What the background thread sends back. */
export type FromWorker =
  | { kind: 'wrote'; key: string; body: Uint8Array }
  | { kind: 'rebuilt' }
  | { kind: 'failing'; failing: FailingRebuild[] }
  | { kind: 'done'; id: number; value?: unknown; error?: string };

export interface WorkerSetup {
  config: Config;
  logLevel: string;
  rebuilder: RebuilderOptions;
  maxRebuildBackoffMs?: number;
}

export interface BackgroundThreadOptions {
  logLevel?: string;
  rebuilder?: RebuilderOptions;
  /** The longest wait between retries of a skill whose rebuild fails (30 s unless set). */
  maxRebuildBackoffMs?: number;
  /** A static file the thread wrote: the local CDN refreshes its copy. */
  onWrite(key: string, body: Uint8Array): void;
  /** A rebuild finished: the site may need building. */
  onRebuilt(): void;
  /** The thread died: what it held (pending rebuilds, unwritten counts) is lost, as in a crash. */
  onFailure(error: Error): void;
}

export class BackgroundThread implements InstallCounter, BackgroundWork {
  private readonly worker: Worker;
  private counts: InstallEvent[] = [];
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private failed?: Error;
  private closed = false;
  /** The failing skills as the thread last reported them. */
  private failingRebuilds: FailingRebuild[] = [];

  constructor(
    config: Config,
    private readonly options: BackgroundThreadOptions,
  ) {
    const setup: WorkerSetup = {
      config,
      logLevel: options.logLevel ?? process.env.LOG_LEVEL ?? 'info',
      rebuilder: options.rebuilder ?? {},
      maxRebuildBackoffMs: options.maxRebuildBackoffMs,
    };
    // The thread lowers its own priority, and threads inherit it from the thread that starts
    // them. libuv starts the process's shared thread pool (file system, zlib, DNS lookups) on
    // first use: if the background thread came first, requests' compression and lookups would
    // run at its low priority too (free delivery at 16 connections fell from 1,970 to 980
    // req/s). One no-op pool job from this thread starts the pool here, before the thread.
    access('.', () => {});
    this.worker = startWorker(setup);
    this.worker.on('message', (message: FromWorker) => this.receive(message));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => {
      if (!this.closed) this.fail(new Error(`background thread exited with code ${code}`));
    });
  }

  /** Skills a committed write changed: rebuilt in the thread, bursts coalesced. */
  changed(ids: string[]): void {
    this.post({ kind: 'changed', ids });
  }

  /** Content a publish just stored: the thread's rebuild reads it from its cache, not from S3. */
  stored(sha256: string, bytes: Uint8Array): void {
    this.post({ kind: 'blob', sha256, bytes });
  }

  add(event: InstallEvent): void {
    // One message per turn of the event loop carries every count added in it.
    if (this.counts.length === 0) setImmediate(() => this.sendCounts());
    this.counts.push(event);
  }

  written(): Promise<void> {
    return this.request('written');
  }

  flush(): Promise<void> {
    return this.request('flush');
  }

  /** Every change sent so far is rebuilt and every count written. */
  idle(): Promise<void> {
    return this.request('idle');
  }

  /** The full rebuild, by the thread's Rebuilder, which then knows the bucket's bundles and indexes. */
  rebuildAll(): Promise<RebuildReport> {
    return this.request('rebuildAll');
  }

  /** The public install counts, rewritten by the thread (its SDK clients, its core). */
  publishInstallCounts(): Promise<void> {
    return this.request('installs');
  }

  /** The skills whose rebuild keeps failing, as the thread last said (it says so whenever they change). */
  failing(): FailingRebuild[] {
    return this.failingRebuilds;
  }

  /** Stops the thread; call after `idle()` to lose nothing. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (!this.failed) await this.request('close').catch(() => undefined);
    this.closed = true;
    await this.worker.terminate();
  }

  private request<T = void>(kind: Request): Promise<T> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.closed) return Promise.reject(new Error('the background thread is closed'));
    const id = this.nextId++;
    const done = new Promise<T>((resolve, reject) => this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject }));
    this.post({ kind, id });
    return done;
  }

  private post(message: ToWorker): void {
    if (this.failed || this.closed) return;
    // Counts still buffered go first, so a request covers every count added before it.
    if (message.kind !== 'counts') this.sendCounts();
    this.worker.postMessage(message);
  }

  private sendCounts(): void {
    if (this.counts.length === 0) return;
    const counts = this.counts;
    this.counts = [];
    this.post({ kind: 'counts', counts });
  }

  private receive(message: FromWorker): void {
    if (message.kind === 'wrote') this.options.onWrite(message.key, message.body);
    else if (message.kind === 'rebuilt') this.options.onRebuilt();
    else if (message.kind === 'failing') this.failingRebuilds = message.failing;
    else {
      const waiter = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (message.error === undefined) waiter?.resolve(message.value);
      else waiter?.reject(new Error(message.error));
    }
  }

  private fail(error: Error): void {
    if (this.failed) return;
    this.failed = error;
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
    this.options.onFailure(error);
  }
}

/**
 * The thread, running worker.ts. Run from the server's bundle (`npm start`, scripts/serve.mjs),
 * this module is part of dist/server/start.mjs and the thread's bundle is worker.mjs beside it;
 * run from the sources (tests in-process), the thread registers the TypeScript loader first
 * (boot.mjs), as worker threads do not inherit it on Node 20.
 */
function startWorker(setup: WorkerSetup): Worker {
  if (import.meta.url.endsWith('.mjs')) return new Worker(new URL('./worker.mjs', import.meta.url), { workerData: { setup } });
  return new Worker(new URL('./boot.mjs', import.meta.url), { workerData: { entry: new URL('./worker.ts', import.meta.url).href, setup } });
}
