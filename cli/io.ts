/**
 * Everything a command touches outside its arguments. `cli/main.ts` builds it from `process`;
 * tests can build their own. Commands never read `process` directly.
 */
export interface OutputStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

export interface InputStream extends AsyncIterable<Buffer | string> {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
  pause?(): unknown;
  resume?(): unknown;
  on?(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off?(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
}

export interface Io {
  cwd: string;
  env: Record<string, string | undefined>;
  stdout: OutputStream;
  stderr: OutputStream;
  stdin: InputStream;
  fetch: typeof fetch;
  /** Milliseconds, for durations in messages. */
  now(): number;
}

export function processIo(): Io {
  return {
    cwd: process.cwd(),
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    fetch: globalThis.fetch,
    now: () => performance.now(),
  };
}
