import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The local runtime as `npm start` runs it, in a child process, for end-to-end tests. The site
 * build is off unless a test asks for it (SKILLPRESS_SITE=1): it costs seconds of CPU that only
 * the site's own tests need.
 */
export interface ServerProcess {
  baseUrl: string;
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const root = fileURLToPath(new URL('../..', import.meta.url));

export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', SKILLPRESS_SITE: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    child.stdout!.on('data', () => {
      const match = /Skillpress listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  return {
    baseUrl,
    child,
    output: () => output,
    stop: (signal = 'SIGINT') =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}

export interface CallResult {
  status: number;
  headers: Headers;
  body: any;
}

/** One JSON request over real HTTP to a running server; the body is parsed when there is one. */
export async function call(base: string, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<CallResult> {
  const res = await fetch(base + path, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}
