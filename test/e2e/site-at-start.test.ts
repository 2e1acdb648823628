import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKey, publish, signIn } from '../support/site-fixture.ts';
import { type ServerProcess, startServer } from '../support/server-process.ts';

/**
 * `npm start` on a new store, with the site on as `npm start` has it: the listening line comes
 * before the first site build ends, so what the site paths answer meanwhile, and while later
 * builds replace pages, is what a visitor meets.
 */
vi.setConfig({ testTimeout: 240_000 });

const dataDir = mkdtempSync(join(tmpdir(), 'skillpress-e2e-site-'));
let server: ServerProcess;

beforeAll(async () => {
  server = await startServer({ DATA_DIR: dataDir, SKILLPRESS_SITE: '1', SKILLPRESS_SITE_DEBOUNCE_MS: '200' });
});

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function get(path: string): Promise<{ status: number; type: string; body: string }> {
  const res = await fetch(server.baseUrl + path);
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
}

describe('the site of a new store', () => {
  it('answers HTML on the very first request after the listening line, at every site path', async () => {
    const first = await get('/');
    expect([first.status, first.type]).toEqual([200, 'text/html; charset=utf-8']);
    expect(first.body).toMatch(/^<!doctype html>/i);
    for (const path of ['/skills/not-built-yet/', '/categories/', '/dashboard/', '/authors/alice/']) {
      const res = await get(path);
      expect([res.status, res.type], path).toEqual([200, 'text/html; charset=utf-8']);
    }
    // The API and the registry answer meanwhile, as always.
    expect((await fetch(`${server.baseUrl}/.well-known/skills.json`)).status).toBe(200);
  });

  it('serves the built home page once the first build is uploaded', async () => {
    await expect.poll(async () => (await get('/')).body, { timeout: 200_000, interval: 250 }).toContain('Skills for your agents');
  });

  it('never leaves a page missing while a later build replaces the pages', async () => {
    const cookie = await signIn(server.baseUrl, 'alice');
    const key = await createKey(server.baseUrl, cookie);
    const skill = await publish(server.baseUrl, key, { name: 'Swap Test', description: 'Published during the test', category: 'testing' });
    const seen = new Map<string, number>();
    const watched = ['/', '/categories/', '/dashboard/', '/skills/_/'];
    // Until the next build has uploaded the new skill's page, every page of the last build
    // keeps answering in full.
    await expect
      .poll(
        async () => {
          for (const path of watched) {
            const res = await get(path);
            const outcome = `${path} ${res.status} ${res.type}`;
            seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
          }
          return (await get(`/skills/${skill.slug}/`)).body.includes(`data-slug="${skill.slug}"`);
        },
        { timeout: 200_000, interval: 50 },
      )
      .toBe(true);
    expect([...seen.keys()].sort()).toEqual(watched.map((path) => `${path} 200 text/html; charset=utf-8`).sort());
  });
});
