import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Http } from '#cli/http';
import { nodeFetch } from '#cli/http-transport';
import type { Io } from '#cli/io';
import { silentIo } from '../support/silent-io.ts';
import { closedPort } from '../support/cli-process.ts';

/** The client's node:http transport against servers on loopback, through the client's Http layer. */

const cache = mkdtempSync(join(tmpdir(), 'skillpress-transport-'));
const io = silentIo(nodeFetch);

interface Loopback {
  url: string;
  connections: number;
  seen: { url: string; authorization?: string }[];
  server: Server;
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Loopback> {
  const loopback = {
    url: '',
    connections: 0,
    seen: [] as Loopback['seen'],
    server: createServer((req, res) => {
      loopback.seen.push({ url: req.url!, authorization: req.headers.authorization });
      handler(req, res);
    }),
  };
  loopback.server.on('connection', () => loopback.connections++);
  await new Promise<void>((resolve) => loopback.server.listen(0, '127.0.0.1', resolve));
  loopback.url = `http://127.0.0.1:${(loopback.server.address() as AddressInfo).port}`;
  return loopback;
}

const body = JSON.stringify({ text: 'é'.repeat(5000) });
let registry: Loopback;
let elsewhere: Loopback;

beforeAll(async () => {
  elsewhere = await serve((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"moved":true}'));
  registry = await serve((req, res) => {
    const encoded: Record<string, Buffer> = { gzip: gzipSync(body), deflate: deflateSync(body), br: brotliCompressSync(body) };
    const coding = req.url!.slice(1);
    if (Object.hasOwn(encoded, coding)) {
      // As a CDN does: compressed only for a client that says it can decode it.
      if (!(req.headers['accept-encoding'] ?? '').includes(coding)) return void res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      return void res.writeHead(200, { 'content-encoding': coding, 'content-type': 'application/json' }).end(encoded[coding]);
    }
    if (req.url === '/etag') {
      if (req.headers['if-none-match'] === '"v1"') return void res.writeHead(304).end();
      return void res.writeHead(200, { etag: '"v1"', 'content-type': 'application/json' }).end('{"v":1}');
    }
    if (req.url === '/here') return void res.writeHead(302, { location: '/etag' }).end();
    if (req.url === '/away') return void res.writeHead(307, { location: `${elsewhere.url}/moved` }).end();
    if (req.url === '/silent') return; // never answers
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"No such file"}}');
  });
});

afterAll(async () => {
  for (const { server } of [registry, elsewhere]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  rmSync(cache, { recursive: true, force: true });
});

describe('the node:http transport', () => {
  it('decodes gzip, deflate and brotli answers when asked for them, counting the size limit in decoded bytes', async () => {
    const http = new Http(registry.url, io);
    for (const coding of ['gzip', 'deflate', 'br']) {
      expect(await http.json(`/${coding}`, { compressed: true }), coding).toEqual(JSON.parse(body));
      expect(await http.json(`/${coding}`), coding).toEqual(JSON.parse(body));
    }
    const limit = Buffer.byteLength(body) - 1;
    expect(gzipSync(body).byteLength).toBeLessThan(limit);
    await expect(http.json('/gzip', { maxBytes: limit, compressed: true })).rejects.toMatchObject({ code: 'bad_response', exitCode: 2 });
  });

  it('reuses connections for requests made one after another, 304s included', async () => {
    const http = new Http(registry.url, io, cache);
    expect(await http.json('/etag', { revalidate: true })).toEqual({ v: 1 });
    const open = registry.connections;
    for (let i = 0; i < 5; i++) expect(await http.json('/etag', { revalidate: true })).toEqual({ v: 1 });
    // A request sent the instant the previous answer ends may find its socket not yet back in
    // the pool and open a second one; without keep-alive there would be five.
    expect(registry.connections - open).toBeLessThanOrEqual(1);
  });

  it('follows redirects of GETs, and never carries the key to another origin', async () => {
    const http = new Http(registry.url, io);
    expect(await http.json('/here', { apiKey: 'sk_same_origin' })).toEqual({ v: 1 });
    expect(registry.seen.findLast((s) => s.url === '/etag')!.authorization).toBe('Bearer sk_same_origin');
    expect(await http.json('/away', { apiKey: 'sk_secret' })).toEqual({ moved: true });
    expect(elsewhere.seen.at(-1)).toEqual({ url: '/moved', authorization: undefined });
    // A write is not replayed somewhere else.
    await expect(http.json('/away', { method: 'POST', body: {}, apiKey: 'sk_secret' })).rejects.toMatchObject({
      code: 'bad_response',
      message: expect.stringContaining('HTTP 307'),
    });
    expect(elsewhere.seen).toHaveLength(1);
  });

  it('passes the server error code through, and says at once when nothing listens', async () => {
    await expect(new Http(registry.url, io).json('/nothing')).rejects.toMatchObject({ code: 'not_found', exitCode: 1 });
    const down = `http://127.0.0.1:${await closedPort()}`;
    const started = performance.now();
    const error = await new Http(down, io).json('/x').catch((e) => e);
    expect(error).toMatchObject({ code: 'network_error', exitCode: 2, message: expect.stringContaining('ECONNREFUSED') });
    expect(performance.now() - started).toBeLessThan(250); // no retries: the first retry waits 250 ms
  });

  it('gives up on a silent server when the request signal says so, reported as a timeout', async () => {
    const error = await nodeFetch(new URL(`${registry.url}/silent`), { method: 'GET', headers: {}, signal: AbortSignal.timeout(100) }).catch((e) => e);
    expect(error.cause?.name ?? error.name).toBe('TimeoutError');
    const timingOut: Io = { ...io, fetch: () => Promise.reject(error) };
    await expect(new Http(registry.url, timingOut).json('/api/registry/x', { method: 'POST' })).rejects.toMatchObject({
      code: 'network_error',
      message: expect.stringContaining('no answer within 30 s'),
    });
  });
});
