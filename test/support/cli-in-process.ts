import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { InputStream } from '#cli/io';
import { main } from '#cli/main';
import type { TestStack } from './stack.ts';

/**
 * `skillpress` run in the test's own process through `main(argv, io)`: the same code as the
 * executable, without the cost of a child process, and with any `fetch` — a test stack's app
 * (the whole server without a port) or a registry on loopback.
 */

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json runs). */
  json: any;
}

export interface InProcessOptions {
  cwd: string;
  env: Record<string, string>;
  fetch?: typeof fetch;
  /** What the user types, as a terminal (`isTTY`) or a pipe; nothing by default. */
  stdin?: InputStream;
}

export async function runInProcess(args: string[], options: InProcessOptions): Promise<InProcessResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    cwd: options.cwd,
    env: options.env,
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    stdin: options.stdin ?? { async *[Symbol.asyncIterator]() {} },
    fetch: options.fetch ?? globalThis.fetch,
    now: () => performance.now(),
  });
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}

/**
 * A fetch that hands every request to the stack's app, whatever host the URL names, and decodes
 * a compressed answer as a real fetch does (`app.request` hands back the bytes as the CDN
 * compressed them, which the client asks for on its larger reads).
 */
export const stackFetch = (stack: TestStack): typeof fetch =>
  (async (input: string | URL | Request, init?: RequestInit) => {
    const res = await stack.request(String(input), init);
    const encoding = res.headers.get('content-encoding');
    if (!encoding || !res.body) return res;
    const bytes = Buffer.from(await res.arrayBuffer());
    const decoded = encoding === 'br' ? brotliDecompressSync(bytes) : encoding === 'gzip' ? gunzipSync(bytes) : inflateSync(bytes);
    const headers = new Headers(res.headers);
    headers.delete('content-encoding');
    headers.delete('content-length');
    return new Response(decoded, { status: res.status, statusText: res.statusText, headers });
  }) as typeof fetch;

/** A terminal on which the user types `answer` (a line) when asked. */
export function terminalTyping(answer: string): InputStream {
  return {
    isTTY: true,
    async *[Symbol.asyncIterator]() {
      yield answer;
    },
  };
}
