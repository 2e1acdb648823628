import { nodeFetch } from './http-transport.ts';

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

/** A request as the client sends it. */
export interface HttpRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

/** Reads a body chunk by chunk, as a web stream's reader does; `cancel` stops the download. */
export interface BodyReader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(): Promise<void>;
}

/** An HTTP answer as the client reads it: the part of fetch's `Response` that {@link nodeFetch} gives too. */
export interface HttpAnswer {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  readonly body: { getReader(): BodyReader; cancel(): Promise<void> } | null;
}

/** The client's way out: `fetch` itself fits, as do the test stacks' in-process fetches. */
export type Fetch = (url: URL, init: HttpRequest) => Promise<HttpAnswer>;

export interface Io {
  cwd: string;
  env: Record<string, string | undefined>;
  stdout: OutputStream;
  stderr: OutputStream;
  stdin: InputStream;
  fetch: Fetch;
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
    // node:http, not the global fetch: loading and running undici cost more than the requests
    // themselves (about 50 ms before the first answer, against 9 ms).
    fetch: nodeFetch,
    now: () => performance.now(),
  };
}
