/**
 * Runs `task` after every task queued before it for `key` has settled: one change at a time to an
 * item that many requests of this process change (an account's rate windows, its upload quota),
 * so they do not race each other for the item's revision.
 */
export function oneAtATime<T>(queues: Map<string, Promise<unknown>>, key: string, task: () => Promise<T>): Promise<T> {
  const run = (queues.get(key) ?? Promise.resolve()).then(task, task);
  const settled = run.catch(() => undefined);
  queues.set(key, settled);
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return run;
}
