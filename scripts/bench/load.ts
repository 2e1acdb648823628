import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { mapLimit } from '#core/map-limit';
// Types only: the worker module runs a load when imported.
import type { LoadPlan, LoadResult } from './load-worker.ts';

/** Runs `count` tasks with at most `concurrency` in flight; returns results in task order. */
export function runPool<T>(count: number, concurrency: number, task: (index: number) => Promise<T>): Promise<T[]> {
  return mapLimit(
    Array.from({ length: count }, (_, i) => i),
    concurrency,
    (i) => task(i),
  );
}

/**
 * Runs load-worker.ts in a child process with `plan` and returns what it measured. The load
 * generator then competes with the server only for CPU, never for its event loop.
 */
export async function runLoad(plan: LoadPlan): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'skillpress-load-'));
  try {
    const file = join(dir, 'plan.json');
    writeFileSync(file, JSON.stringify(plan));
    const worker = fileURLToPath(new URL('./load-worker.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', worker, file], { maxBuffer: 256 * 1024 * 1024 });
    return JSON.parse(stdout) as LoadResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
