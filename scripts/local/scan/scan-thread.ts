import { Worker } from 'node:worker_threads';
import type { ScanResult } from '#core/scan/finding';
import type { ScanFile, ScanOptions } from '#core/scan/scan';
import type { Scanner } from '#functions/services/scanning';

/**
 * The scanner of `npm start` in a thread of its own. One process serves every request there, and
 * a scan is CPU for as long as the version is big and strange (a few seconds for 5 MiB of
 * adversarial text): on the request thread it held every other request, `/api/health` included,
 * for that long. Here the request waits for its answer while the loop goes on serving. On AWS a
 * Lambda serves one request per process, so the engine runs in the request's own thread there.
 *
 * The thread runs the same engine (`ruleEngine` of functions/services/scanning.ts) on the same
 * files; scans queue in the order they were asked for.
 */
export type ToScanThread = { id: number; files: ScanFile[]; options: ScanOptions };
export type FromScanThread = { id: number; result?: ScanResult; error?: string };

export class ScanThread {
  private readonly worker: Worker;
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (result: ScanResult) => void; reject: (error: Error) => void }>();
  private failed?: Error;

  constructor() {
    this.worker = startWorker();
    this.worker.on('message', ({ id, result, error }: FromScanThread) => {
      const waiter = this.waiting.get(id);
      this.waiting.delete(id);
      if (result) waiter?.resolve(result);
      else waiter?.reject(new Error(error ?? 'the scan thread gave no result'));
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the scan thread exited with code ${code}`)));
    // An idle scan thread must not keep a finished process alive.
    this.worker.unref();
  }

  /** The port publishing and the rescan call: a scan in the thread. */
  readonly scan: Scanner = (files, options) => {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    const done = new Promise<ScanResult>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    const message: ToScanThread = { id, files: files.map((f) => ({ filename: f.filename, bytes: f.bytes, executable: f.executable })), options };
    this.worker.postMessage(message);
    return done;
  };

  async close(): Promise<void> {
    this.failed ??= new Error('the scan thread is closed');
    await this.worker.terminate();
  }

  private fail(error: Error): void {
    this.failed ??= error;
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}

/** Bundled (`npm start`), the thread's entry is scan-worker.mjs beside the bundle; from the sources, boot.mjs registers the TypeScript loader first. */
function startWorker(): Worker {
  if (import.meta.url.endsWith('.mjs')) return new Worker(new URL('./scan-worker.mjs', import.meta.url));
  return new Worker(new URL('../background/boot.mjs', import.meta.url), { workerData: { entry: new URL('./scan-worker.ts', import.meta.url).href } });
}
