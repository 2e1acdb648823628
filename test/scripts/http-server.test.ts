import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApp } from '#scripts/local/http-server';

/** What Node's parser refuses before the app runs still answers in the contract's JSON shape. */

let port: number;
let close: () => Promise<void>;

beforeAll(async () => {
  const served = await serveApp(() => new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } }), '127.0.0.1', 0);
  port = served.port;
  close = () => new Promise((resolve) => served.server.close(() => resolve()));
});
afterAll(() => close());

/** Sends raw bytes and reads the whole answer (the server closes after a refused request). */
function exchange(raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(raw));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

function parse(answer: string): { status: number; headers: string; body: any } {
  const [head, body] = answer.split('\r\n\r\n');
  return { status: Number(head!.split(' ')[1]), headers: head!, body: JSON.parse(body!) };
}

describe('requests Node refuses', () => {
  it('answers an over-long URL with a JSON 431', async () => {
    const { status, headers, body } = parse(await exchange(`GET /api/registry/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(status).toBe(431);
    expect(headers).toMatch(/content-type: application\/json/i);
    expect(body.error.code).toBe('headers_too_large');
  });

  it('answers over-long headers with a JSON 431', async () => {
    const { status, body } = parse(await exchange(`GET / HTTP/1.1\r\nHost: x\r\nCookie: ${'c'.repeat(20_000)}\r\n\r\n`));
    expect(status).toBe(431);
    expect(body.error).toEqual({ code: 'headers_too_large', message: expect.any(String) });
  });

  it('answers a malformed request with a JSON 400', async () => {
    const { status, body } = parse(await exchange('NOT HTTP AT ALL\r\n\r\n'));
    expect(status).toBe(400);
    expect(body.error.code).toBe('invalid_request');
  });

  it('still serves normal requests', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect(await res.json()).toEqual({ ok: true });
  });
});
