import { mapLimit } from '#core/map-limit';

/** Runs `count` tasks with at most `concurrency` in flight; returns results in task order. */
export function runPool<T>(count: number, concurrency: number, task: (index: number) => Promise<T>): Promise<T[]> {
  return mapLimit(Array.from({ length: count }, (_, i) => i), concurrency, (i) => task(i));
}
