import type * as Http from 'node:http';
import type * as Https from 'node:https';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type * as Zlib from 'node:zlib';
import type { Fetch, HttpAnswer, HttpRequest } from './io.ts';

/**
 * The client's HTTP, with fetch's shape, on node:http. The global fetch (undici) takes about
 * 50 ms to load and answer a first request and adds its stream machinery to every body, more
 * than a whole lookup of a registry document costs here. What fetch did for us is kept:
 * connections are reused (keep-alive), gzip, deflate and brotli answers are decoded when the
 * caller asked for them (the size limits apply to the decoded bytes), and GET follows up to five
 * redirects, dropping the `Authorization` header when one leads to another origin. https is
 * loaded only when a registry uses it.
 */

// Required, not imported: on Node 22 the ES module face of node:http reads every export, and one
// of them loads undici, which is what this file avoids (29 ms against 4 ms).
const requireBuiltin = createRequire(import.meta.url);
const http = requireBuiltin('node:http') as typeof Http;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

type Send = (url: URL, options: Http.RequestOptions, onResponse: (res: Http.IncomingMessage) => void) => Http.ClientRequest;

const plain = { request: http.request as Send, agent: new http.Agent({ keepAlive: true }) };
let secure: { request: Send; agent: Http.Agent } | undefined;

function transportFor(url: URL): { request: Send; agent: Http.Agent } {
  if (url.protocol !== 'https:') return plain;
  if (!secure) {
    const https = requireBuiltin('node:https') as typeof Https;
    secure = { request: https.request as Send, agent: new https.Agent({ keepAlive: true }) };
  }
  return secure;
}

export const nodeFetch: Fetch = async (url, init) => {
  let target = url;
  let headers = init.headers;
  for (let hop = 0; ; hop++) {
    const res = await send(target, { ...init, headers });
    const location = res.headers.location;
    const next = location && URL.canParse(location, target) ? new URL(location, target) : undefined;
    const follow =
      next && REDIRECTS.has(res.statusCode ?? 0) && init.method === 'GET' && hop < MAX_REDIRECTS && (next.protocol === 'http:' || next.protocol === 'https:');
    if (!follow) return answer(res);
    res.resume();
    // A key or token is for the registry that was asked, not for wherever it points.
    if (next.origin !== target.origin) headers = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'));
    target = next;
  }
};

function send(url: URL, init: HttpRequest): Promise<Http.IncomingMessage> {
  const { request, agent } = transportFor(url);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method, headers: init.headers, agent, signal: init.signal }, resolve);
    req.on('error', reject);
    req.end(init.body);
  });
}

function answer(res: Http.IncomingMessage): HttpAnswer {
  const status = res.statusCode ?? 0;
  // Nothing to read, but read it all the same: only then does the connection go back to the pool.
  if (status === 204 || status === 304) res.resume();
  const stream = decoded(res);
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: {
      get: (name) => {
        const value = res.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    },
    body: {
      getReader: () => {
        const chunks = stream[Symbol.asyncIterator]();
        return {
          read: () => chunks.next() as Promise<{ done: boolean; value?: Uint8Array }>,
          cancel: async () => {
            await chunks.return?.();
          },
        };
      },
      cancel: async () => {
        stream.destroy();
        res.destroy();
      },
    },
  };
}

/** The body as sent before any content coding, so that limits count what the client will parse. */
function decoded(res: Http.IncomingMessage): Readable {
  const coding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (!['gzip', 'x-gzip', 'deflate', 'br'].includes(coding)) return res;
  // Loaded when an answer is compressed, not at every start.
  const zlib = requireBuiltin('node:zlib') as typeof Zlib;
  const decoder = coding === 'deflate' ? zlib.createInflate() : coding === 'br' ? zlib.createBrotliDecompress() : zlib.createGunzip();
  res.on('error', (error) => decoder.destroy(error));
  return res.pipe(decoder);
}
