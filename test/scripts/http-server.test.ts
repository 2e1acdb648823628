import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CdnAnswer, CdnRequest } from '#scripts/local/cdn';
import { serveApp } from '#scripts/local/http-server';
import { Client, createTestStack, json, skillBody, type TestStack, withKey } from '../support/stack.ts';

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

/** One request sent exactly as given (fetch would normalise the path and ask for gzip itself). */
function send(
  port: number,
  path: string,
  method = 'GET',
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: [string, string][]; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: Object.entries(res.headers).map(([k, v]) => [k, String(v)]), body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
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

describe('static reads answered before the app', () => {
  let cdnPort: number;
  let stop: () => Promise<void>;
  const seen = { cdn: [] as string[], app: [] as string[] };
  let failNext = false;

  beforeAll(async () => {
    const cdn = {
      answer: async (request: CdnRequest): Promise<CdnAnswer> => {
        seen.cdn.push(`${request.method} ${request.path} ${request.acceptEncoding ?? '-'} ${request.ifNoneMatch ?? '-'}`);
        if (failNext) {
          failNext = false;
          throw new Error('bucket unreachable');
        }
        return { status: 200, headers: { 'Content-Type': 'text/plain', 'Content-Length': '3' }, body: 'cdn' };
      },
    };
    const app = (request: Request) => {
      seen.app.push(`${request.method} ${new URL(request.url).pathname}`);
      return new Response('app');
    };
    const served = await serveApp(app, '127.0.0.1', 0, cdn);
    cdnPort = served.port;
    stop = () => new Promise((resolve) => served.server.close(() => resolve()));
  });
  afterAll(() => stop());

  const get = async (path: string, init: { method?: string; headers?: Record<string, string> } = {}) =>
    (await send(cdnPort, path, init.method, init.headers)).body.toString();

  it('hands plain GETs and HEADs of the static tree and the site to the CDN, with the query left off', async () => {
    seen.cdn.length = 0;
    expect(await get('/api/registry/pretty-json', { headers: { 'accept-encoding': 'br', 'if-none-match': '"x"' } })).toBe('cdn');
    expect(await get('/skills/_/?slug=pretty-json')).toBe('cdn');
    expect(await get('/.well-known/skills.json')).toBe('cdn');
    await get('/bundles/a/1.0.0.json', { method: 'HEAD' });
    expect(seen.cdn).toEqual([
      'GET /api/registry/pretty-json br "x"',
      expect.stringMatching(/^GET \/skills\/_\/ /),
      expect.stringMatching(/^GET \/.well-known\/skills.json /),
      expect.stringMatching(/^HEAD \/bundles\/a\/1.0.0.json /),
    ]);
  });

  it('leaves the API, other methods and request targets that need normalising to the app', async () => {
    seen.app.length = 0;
    seen.cdn.length = 0;
    expect(await get('/api/skills/mine')).toBe('app');
    expect(await get('/api/registry/x', { method: 'POST' })).toBe('app');
    expect(await get('/api/registry/pretty%2Djson')).toBe('app');
    expect(await get('/api/registry/./pretty-json')).toBe('app');
    expect(await get('/skills/../api/skills/mine')).toBe('app');
    // ClawHub's discovery documents name the origin asked: the API writes them, under npm start too.
    expect(await get('/.well-known/clawhub.json')).toBe('app');
    expect(await get('/.well-known/clawdhub.json')).toBe('app');
    expect(seen.cdn).toEqual([]);
    expect(seen.app).toHaveLength(7);
  });

  it('hands a read the CDN could not answer to the app, which answers it again and maps a second failure', async () => {
    seen.app.length = 0;
    failNext = true;
    expect(await get('/api/registry/pretty-json')).toBe('app');
    expect(seen.app).toEqual(['GET /api/registry/pretty-json']);
  });
});

describe('the CDN before the app and through it', () => {
  let stack: TestStack;
  let servedPort: number;
  let answeredFirst = 0;
  let stop: () => Promise<void>;
  let slug: string;

  beforeAll(async () => {
    stack = await createTestStack();
    const cdn = {
      answer: (request: CdnRequest) => {
        answeredFirst += 1;
        return stack.runtime.cdn.answer(request);
      },
    };
    const served = await serveApp(stack.runtime.app.fetch, '127.0.0.1', 0, cdn);
    servedPort = served.port;
    stop = () => new Promise((resolve) => served.server.close(() => resolve()));
    const client = await Client.signIn(stack, 'ada');
    const key = (await json(await client.session('/api/api-keys', { method: 'POST', body: { name: 'k' } }))).key as string;
    const published = await json(await withKey(stack, key, '/api/publish', { body: skillBody() }));
    slug = published.slug;
    await stack.idle();
  });
  afterAll(() => stop());

  /** Status, headers but Date and the connection's, and body: what a client can tell apart. */
  const answerOf = (answer: { status: number; headers: [string, string][]; body: Buffer }) => ({
    status: answer.status,
    headers: answer.headers.filter(([name]) => !['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)).sort(),
    body: answer.body.toString('base64'),
  });
  const viaApp = async (path: string, method: string, headers: Record<string, string>) => {
    const res = await stack.request(path, { method, headers });
    return { status: res.status, headers: [...res.headers].map(([k, v]) => [k, v] as [string, string]), body: Buffer.from(await res.arrayBuffer()) };
  };

  it('answers every kind of static read the same either way', async () => {
    const etag = (await stack.request(`/api/registry/${slug}`)).headers.get('etag')!;
    const cases: [string, Record<string, string>, string?][] = [
      [`/api/registry/${slug}`, {}],
      [`/api/registry/${slug}`, { 'accept-encoding': 'gzip' }],
      [`/api/registry/${slug}/versions`, { 'accept-encoding': 'br, gzip' }],
      [`/api/registry/${slug}`, { 'if-none-match': etag }],
      [`/api/registry/${slug}`, {}, 'HEAD'],
      ['/api/registry/no-such-skill', {}],
      ['/.well-known/skills.json', {}],
      ['/.well-known/agent-skills/index.json', {}],
      ['/.well-known/nothing-here.json', {}],
      ['/bundles/nope/1.0.0.json', {}],
      [`/skills/${slug}/`, {}],
      ['/no/such/page', {}],
    ];
    for (const [path, headers, method = 'GET'] of cases) {
      const direct = answerOf(await send(servedPort, path, method, headers));
      const throughApp = answerOf(await viaApp(path, method, headers));
      expect(direct, `${method} ${path} ${JSON.stringify(headers)}`).toEqual(throughApp);
    }
    expect(answeredFirst).toBe(cases.length);
  });
});
