import type { Fetch, Io } from '#cli/io';

/** An Io that prints nothing and reads nothing, with `fetch` as its way out: for the client's HTTP tests. */
export function silentIo(fetch: Fetch): Io {
  return {
    cwd: '/',
    env: {},
    stdout: { write: () => true },
    stderr: { write: () => true },
    stdin: { async *[Symbol.asyncIterator]() {} },
    now: () => 0,
    fetch,
  };
}
