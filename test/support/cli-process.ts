import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The `skillpress` executable run as users run it, in a child process, for CLI tests. */

const bin = fileURLToPath(new URL('../../cli/bin.mjs', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json runs). */
  json: any;
}

export interface CliOptions {
  cwd: string;
  env: Record<string, string>;
  input?: string;
  /** An installed `skillpress` to run instead of the repository's cli/bin.mjs. */
  executable?: string;
}

/** Runs `skillpress <args>` with only the given environment (plus PATH): nothing leaks in. */
export function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const [file, argv] = options.executable ? [options.executable, args] : [process.execPath, [bin, ...args]];
    const child = spawn(file, argv, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
    child.stdin.end(options.input ?? '');
  });
}

export interface Proxy {
  url: string;
  close(): Promise<void>;
}

/**
 * A loopback proxy in front of the registry that rewrites downloads (deliveries and bundles) with `mutate`: the
 * man in the middle (or the corrupted cache) the client's integrity checks must stop.
 */
export async function startTamperProxy(
  target: string,
  mutate: (delivery: { files: { filename: string; content: string; encoding?: string }[] }) => void,
): Promise<Proxy> {
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const upstream = await fetch(target + req.url, {
      method: req.method,
      headers: Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'accept-encoding', 'content-length'].includes(name)) as [string, string][],
      ),
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    });
    let body = Buffer.from(await upstream.arrayBuffer());
    // Every download a client installs: a delivery, or a free version's bundle.
    if ((req.url!.startsWith('/api/deliver/') || req.url!.startsWith('/bundles/')) && upstream.status === 200) {
      const delivery = JSON.parse(body.toString('utf8'));
      mutate(delivery);
      body = Buffer.from(JSON.stringify(delivery));
    }
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'etag', 'cache-control', 'retry-after']) {
      const value = upstream.headers.get(name);
      if (value) headers[name] = value;
    }
    res.writeHead(upstream.status, headers).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A loopback port with nothing listening on it, for "registry unreachable" cases. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
