import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Http } from '#cli/http';
import { silentIo } from '../support/silent-io.ts';

const cache = mkdtempSync(join(tmpdir(), 'skillpress-http-'));
afterAll(() => rmSync(cache, { recursive: true, force: true }));

type Answer = Response | Error;

/** An Io whose fetch replays `answers` in order and records each request's headers. */
function scripted(answers: Answer[]) {
  const seen: { url: string; headers: Record<string, string> }[] = [];
  const io = silentIo(async (url, init) => {
    seen.push({ url: String(url), headers: init.headers });
    const answer = answers.shift();
    if (!answer) throw new Error('no more answers');
    if (answer instanceof Error) throw answer;
    return answer;
  });
  return { io, seen };
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
/** `{"pad":"aaa…"}` of `size` bytes, streamed in 64 KiB chunks as they are pulled. */
function lazyJson(size: number, pulled: { bytes: number }, status = 200): Response {
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  let left = size;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = left === size ? new TextEncoder().encode('{"pad":"') : left <= chunk.byteLength ? new TextEncoder().encode('"}'.padStart(left, 'a')) : chunk;
      left -= part.byteLength;
      pulled.bytes += part.byteLength;
      controller.enqueue(part);
      if (left <= 0) controller.close();
    },
  });
  return new Response(stream, { status, headers: { 'content-type': 'application/json' } });
}

const failed = async (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable(),
    (error) => error,
  );

describe('the client HTTP layer', () => {
  it('keeps registry documents with their ETag and revalidates them with If-None-Match', async () => {
    const { io, seen } = scripted([json({ v: 1 }, 200, { etag: '"abc"' }), new Response(null, { status: 304 })]);
    const http = new Http('http://registry.test', io, cache);
    expect(await http.json('/api/registry/x', { revalidate: true })).toEqual({ v: 1 });
    expect(await http.json('/api/registry/x', { revalidate: true })).toEqual({ v: 1 });
    expect(seen[0]!.headers['if-none-match']).toBeUndefined();
    expect(seen[1]!.headers['if-none-match']).toBe('"abc"');
  });

  it('never caches private answers such as deliveries', async () => {
    const { io, seen } = scripted([json({ files: [] }, 200, { etag: '"d"', 'cache-control': 'private, no-store' }), json({ files: [] })]);
    const http = new Http('http://registry.test', io, cache);
    await http.json('/api/deliver/1', { revalidate: true });
    await http.json('/api/deliver/1', { revalidate: true });
    expect(seen[1]!.headers['if-none-match']).toBeUndefined();
  });

  it('keeps the server error code and status, with Retry-After as a hint', async () => {
    const { io } = scripted([
      json({ error: { code: 'rate_limited', message: 'slow down' } }, 429, { 'retry-after': '42' }),
      json({ error: { code: 'payment_required', message: 'pay' } }, 402),
    ]);
    const http = new Http('http://registry.test', io);
    expect(await failed(http.json('/api/publish', { method: 'POST', body: {} }))).toMatchObject({
      code: 'rate_limited',
      exitCode: 2,
      options: { status: 429, hint: 'try again in 42 s' },
    });
    expect(await failed(http.json('/api/deliver/1'))).toMatchObject({ code: 'payment_required', exitCode: 1 });
  });

  it('retries a GET on a gateway error or a dropped connection, but not a POST', async () => {
    const reset = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
    const { io, seen } = scripted([new Response('bad gateway', { status: 502 }), reset, json({ ok: true })]);
    expect(await new Http('http://registry.test', io).json('/x')).toEqual({ ok: true });
    expect(seen).toHaveLength(3);
    const post = scripted([new Response('bad gateway', { status: 502 })]);
    expect(await failed(new Http('http://registry.test', post.io).json('/x', { method: 'POST', body: {} }))).toMatchObject({
      code: 'bad_response',
      exitCode: 2,
    });
  });

  it('fails at once with network_error (exit 2) when nothing listens, and never shows a token', async () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    const { io, seen } = scripted([refused]);
    const error = await failed(new Http('http://registry.test', io).json('/api/deliver/1', { query: { token: 'dt_secret' } }));
    expect(error).toMatchObject({ code: 'network_error', exitCode: 2 });
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).not.toContain('dt_secret');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toContain('token=dt_secret');
  });

  it('stops reading an answer as soon as it is larger than the request allows, as bad_response (exit 2)', async () => {
    const pulled = { bytes: 0 };
    // 64 MiB of valid JSON, made as it is read: only what the client pulls ever exists.
    const { io } = scripted([lazyJson(64 * 1024 * 1024, pulled), lazyJson(64 * 1024 * 1024, pulled, 500)]);
    const http = new Http('http://registry.test', io);
    const error = await failed(http.json('/api/deliver/1', { maxBytes: 1024 * 1024 }));
    expect(error).toMatchObject({ code: 'bad_response', exitCode: 2, message: expect.stringContaining('more than 1.0 MB') });
    expect(pulled.bytes).toBeLessThan(2 * 1024 * 1024);
    // Without maxBytes, an answer is small: an error body cannot be endless either.
    pulled.bytes = 0;
    expect(await failed(http.json('/api/publish', { method: 'POST', body: {} }))).toMatchObject({ code: 'bad_response' });
    expect(pulled.bytes).toBeLessThan(2 * 1024 * 1024);
  });

  it('reads an answer up to its limit, and keeps a byte-order mark inside the JSON', async () => {
    const body = JSON.stringify({ content: '\uFEFFtext' });
    const { io } = scripted([new Response(body), new Response(body)]);
    expect(await new Http('http://registry.test', io).json('/x', { maxBytes: Buffer.byteLength(body) })).toEqual({ content: '\uFEFFtext' });
    expect(await failed(new Http('http://registry.test', io).json('/x', { maxBytes: Buffer.byteLength(body) - 1 }))).toMatchObject({ code: 'bad_response' });
  });

  it('calls an answer that is not JSON a bad response', async () => {
    const { io } = scripted([new Response('<html>', { status: 200 })]);
    expect(await failed(new Http('http://registry.test', io).json('/x'))).toMatchObject({ code: 'bad_response' });
  });
});
