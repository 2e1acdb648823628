import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mapLimit } from '#core/map-limit';

/**
 * The ceiling of the W1 cells at one connection (verdaccio.ts): a bare `node:http` server, in a
 * process of its own as ours is, that answers each path with the bytes and headers our server
 * gave for it, from memory, and does nothing else. At one connection a read is a round trip
 * between two processes on loopback, and no Node server here answers one faster than this; the
 * comparison measures it beside ours, so a cell that misses can be told from this machine's
 * limit (docs/benchmarks.md).
 *
 * Run as a script (the child), it serves the answers in the JSON file its argument names and
 * sends its port to the parent.
 */

interface Answer {
  headers: Record<string, string>;
  body: string;
}

export interface BareServer {
  baseUrl: string;
  stop(): Promise<void>;
}

/** Reads each of `paths` from `base` once, then serves exactly those answers from a bare server. */
export async function startBareServer(base: string, paths: string[]): Promise<BareServer> {
  const answers: Record<string, Answer> = {};
  await mapLimit(paths, 8, async (path) => {
    // As the load generator asks: no Accept-Encoding, so the bytes as they are.
    const res = await fetch(base + path, { headers: { 'accept-encoding': 'identity' } });
    const headers: Record<string, string> = {};
    // Node sets these itself; fetch's content-length would be of the decoded body.
    for (const [name, value] of res.headers) if (!HOP_BY_HOP.has(name)) headers[name] = value;
    answers[path] = { headers, body: await res.text() };
  });
  const dir = mkdtempSync(join(tmpdir(), 'skillpress-bare-'));
  const file = join(dir, 'answers.json');
  writeFileSync(file, JSON.stringify(answers));
  const child = fork(fileURLToPath(import.meta.url), [file], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.once('message', (m) => resolve(m as number));
      child.once('exit', (code) => reject(new Error(`the bare server exited with ${code}`)));
    });
    return { baseUrl: `http://127.0.0.1:${port}`, stop: () => stop(child, dir) };
  } catch (error) {
    await stop(child, dir);
    throw error;
  }
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'date']);

async function stop(child: ChildProcess, dir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill();
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
}

function serve(file: string): void {
  const answers = new Map(
    Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, Answer>).map(([path, { headers, body }]) => {
      const bytes = Buffer.from(body);
      return [path, { headers: { ...headers, 'content-length': String(bytes.byteLength) }, bytes }];
    }),
  );
  const server = createServer((req, res) => {
    const answer = answers.get(req.url ?? '');
    if (!answer) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, answer.headers);
    res.end(answer.bytes);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => process.send?.((server.address() as AddressInfo).port));
  process.on('disconnect', () => process.exit(0));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) serve(process.argv[2]!);
