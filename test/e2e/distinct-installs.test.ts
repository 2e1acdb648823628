import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTALLS_KEY } from '#core/static-paths';
import { publishInstallCounts } from '#functions/services/public-installs';
import { serveApp } from '#scripts/local/http-server';
import { analytics, authorStack, publish } from '../support/delivery.ts';
import type { Client, TestStack } from '../support/stack.ts';

/**
 * Installs counted over real connections, as `npm start` serves them: each request opens its own
 * connection from a loopback source address of its own (Node's `localAddress`), so the server
 * sees several clients, and headers a client sets cannot pose as another.
 */

let stack: TestStack;
let alice: Client;
let aliceKey: string;
let port: number;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ stack, alice, aliceKey } = await authorStack());
  const served = await serveApp(stack.runtime.app.fetch, '127.0.0.1', 0, stack.runtime.cdn);
  port = served.port;
  close = () => new Promise((resolve) => served.server.close(() => resolve()));
});
afterAll(() => close?.());

/** One GET over a new connection from `from`; resolves with the status once the body is read. */
function get(path: string, from: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; body: string; etag?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, localAddress: from, agent: false, headers }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body, etag: res.headers.etag }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function publicCounts(slug: string): Promise<unknown> {
  await stack.idle();
  await publishInstallCounts(stack.deps);
  return (JSON.parse((await get(`/${INSTALLS_KEY}`, '127.0.0.1')).body) as { skills: Record<string, unknown> }).skills[slug];
}

describe('installs from real connections', () => {
  it('counts 100 anonymous GETs from one address as one install in public, and every delivery in the author’s total', async () => {
    const skill = await publish(stack, aliceKey);
    // What an <img> tag on another site, or a loop of curl, sends: the same client again and again.
    const browser = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' };
    for (let i = 0; i < 100; i += 10) {
      const statuses = await Promise.all(Array.from({ length: 10 }, () => get(`/api/deliver/${skill.id}?source=web`, '127.0.0.2', browser)));
      expect(statuses.map((r) => r.status)).toEqual(Array(10).fill(200));
    }
    expect(await publicCounts(skill.slug)).toEqual({ total: 1, last7d: 1, last30d: 1 });

    for (const from of ['127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7']) {
      expect((await get(`/api/deliver/${skill.id}?source=cli`, from, { 'user-agent': 'skillpress-cli/1.0.0 node/20.20.0' })).status).toBe(200);
    }
    expect(await publicCounts(skill.slug)).toEqual({ total: 6, last7d: 6, last30d: 6 });
    expect(await analytics(alice, skill.id)).toMatchObject({ total: 105, distinct: { total: 6 }, byClient: { skillpress: 5, other: 100 } });
  });

  it('takes the address from the connection, not from forwarding headers', async () => {
    const skill = await publish(stack, aliceKey);
    for (let i = 0; i < 5; i++) {
      const spoofed = { 'x-forwarded-for': `203.0.113.${i}`, 'cloudfront-viewer-address': `203.0.113.${i}:1234`, 'x-real-ip': `203.0.113.${i}` };
      expect((await get(`/api/deliver/${skill.id}`, '127.0.0.8', spoofed)).status).toBe(200);
    }
    expect(await publicCounts(skill.slug)).toEqual({ total: 1, last7d: 1, last30d: 1 });
  });
});

describe('installs from the discovery index, counted from the CDN’s log', () => {
  it('counts each GET of a skill’s discovery file through its own index once, from the client skills, and never a HEAD, a 304 or an update check', async () => {
    const skill = await publish(stack, aliceKey);
    await stack.idle();
    const urlIn = async (indexPath: string) => {
      const index = JSON.parse((await get(indexPath, '127.0.0.1')).body) as { skills: { name: string; url: string }[] };
      const named = new URL(index.skills.find((s) => s.name === skill.slug)!.url, 'http://x');
      return named.pathname + named.search;
    };
    const url = await urlIn(`/skills/${skill.slug}/.well-known/agent-skills/index.json`);
    const node = { 'user-agent': 'node' };
    // The same file, named by the shared index: skills add <origin> downloads every skill of it, with --list too. Not an install.
    const shared = await urlIn('/.well-known/agent-skills/index.json');
    expect(shared).toBe(url.slice(0, url.indexOf('?')));
    expect((await get(shared, '127.0.1.7', node)).status).toBe(200);
    // Three clients, one of them twice: four installs, three distinct.
    for (const from of ['127.0.1.2', '127.0.1.3', '127.0.1.4', '127.0.1.4']) expect((await get(url, from, node)).status).toBe(200);
    const { etag } = await get(url, '127.0.1.5', { 'user-agent': 'curl/8.5.0' });
    // Not installs: a HEAD, a revalidation answered 304, an update check, the index, a file that is not there.
    expect((await get(url, '127.0.1.6', node, 'HEAD')).status).toBe(200);
    expect((await get(url, '127.0.1.6', { ...node, 'if-none-match': etag! })).status).toBe(304);
    expect((await get(url, '127.0.1.6', { ...node, 'x-skills-update-check': '1' })).status).toBe(200);
    expect((await get('/.well-known/agent-skills/index.json', '127.0.1.6', node)).status).toBe(200);
    expect((await get(`/.well-known/agent-skills/${skill.slug}/9.9.9.tar.gz`, '127.0.1.6', node)).status).toBe(404);
    await stack.idle();
    expect(await analytics(alice, skill.id)).toMatchObject({
      total: 5,
      bySource: { cli: 5, web: 0, api: 0 },
      byClient: { skillpress: 0, skills: 4, clawhub: 0, other: 1 },
      distinct: { total: 4 },
    });
    expect(await publicCounts(skill.slug)).toEqual({ total: 4, last7d: 4, last30d: 4 });
  });
});
