import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../support/cli-process.ts';
import { call, type ServerProcess, startServer } from '../support/server-process.ts';
import { skillFile } from '../support/skill-md.ts';

/**
 * `skillpress install` of free skills as people run it, against `npm start` behind a proxy that
 * notes every request: the free versions come from their immutable bundles on the CDN (marked as
 * an install, docs/api.md §10.2), not from the API's delivery, and each install is counted once,
 * from the CDN's log, as the skillpress client's.
 */

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

const work = mkdtempSync(join(tmpdir(), 'skillpress-cdn-install-'));
const env = { HOME: join(work, 'home'), XDG_CONFIG_HOME: join(work, 'config'), XDG_CACHE_HOME: join(work, 'cache') };
let server: ServerProcess;
let proxy: Server;
let base: string;
let cookie: string;
let apiKey: string;
const requests: string[] = [];

beforeAll(async () => {
  server = await startServer({ DATA_DIR: join(work, 'data') });
  const upstream = new URL(server.baseUrl);
  proxy = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const forwarded = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const login = await call(server.baseUrl, '/api/auth/dev-login', { method: 'POST', body: { login: 'alice' }, headers: { origin: server.baseUrl } });
  cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  apiKey = (await call(server.baseUrl, '/api/api-keys', { method: 'POST', body: { name: 'cdn' }, headers: { cookie, origin: server.baseUrl } })).body.key;
});

afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

async function publish(slug: string): Promise<string> {
  const res = await call(server.baseUrl, '/api/publish', {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    body: { name: slug, slug, description: `The ${slug} skill.`, category: 'testing', files: [skillFile(slug, `# ${slug}\n`, `The ${slug} skill.`)] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const deadline = Date.now() + 60_000;
  while ((await call(server.baseUrl, `/api/registry/${slug}`)).status !== 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return res.body.id;
}

/** The skill's analytics once `expected` installs have been counted (the CDN's log is read a moment after the download). */
async function installsOnce(id: string, expected: number): Promise<{ total: number; bySource: Record<string, number>; byClient: Record<string, number> }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await call(server.baseUrl, `/api/analytics/${id}`, { headers: { cookie } });
    if (res.body.total >= expected || Date.now() > deadline) return res.body;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('installing free skills', () => {
  it('downloads each from its bundle on the CDN, marked as an install, and counts each install once as the skillpress client’s', async () => {
    const slugs = ['cdn-alpha', 'cdn-beta', 'cdn-gamma'];
    const ids = await Promise.all(slugs.map(publish));
    for (const [round, name] of ['first', 'second'].entries()) {
      const dir = join(work, name);
      mkdirSync(dir);
      requests.length = 0;
      const result = await runCli(['install', ...slugs, '--registry', base, '--json'], { cwd: dir, env });
      expect(result.code, result.stderr).toBe(0);
      for (const slug of slugs) expect(readFileSync(join(dir, '.agents/skills', slug, 'SKILL.md'), 'utf8')).toContain(`# ${slug}`);
      expect(requests.filter((r) => r.includes('/api/deliver/'))).toEqual([]);
      expect(requests.filter((r) => r.startsWith('GET /bundles/')).sort()).toEqual(slugs.map((slug) => `GET /bundles/${slug}/1.0.0.json?via=install`));
      for (const id of ids) {
        const counted = await installsOnce(id, round + 1);
        expect(counted).toMatchObject({ total: round + 1, bySource: { cli: round + 1 }, byClient: { skillpress: round + 1 } });
      }
    }
  });
});
