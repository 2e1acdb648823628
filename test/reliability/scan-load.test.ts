import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, type ServerProcess, startServer } from '../support/server-process.ts';
import { accountMadeDaysAgoIn } from '../support/site-browser.ts';
import { skillFile } from '../support/skill-md.ts';

/**
 * A publish whose scan is seconds of CPU (4 MiB of zero-width lines, the shape that took ~15 s
 * and held `/api/health` for all of it) must not hold the server: under `npm start` the scan runs
 * in its own thread, so the request loop keeps answering while the publish waits.
 */

let server: ServerProcess | undefined;
const dir = mkdtempSync(join(tmpdir(), 'skillpress-scan-load-'));
afterAll(async () => {
  await server?.stop('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('a publish with a costly scan', () => {
  it('leaves /api/health answering at once while the scan runs', async () => {
    // An established publisher (older than a week, a clean skill out): its flagged version is published flagged, not held for review.
    await accountMadeDaysAgoIn(dir, 'alice', 8);
    server = await startServer({ DATA_DIR: dir, SKILLPRESS_SITE: '0' });
    const base = server.baseUrl;
    const login = await call(base, '/api/auth/dev-login', { method: 'POST', body: { login: 'alice' }, headers: { origin: base } });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const key = (await call(base, '/api/api-keys', { method: 'POST', body: { name: 'ci' }, headers: { cookie, origin: base } })).body.key as string;
    const clean = await call(base, '/api/publish', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: { name: 'clean', slug: 'clean', description: 'd', category: 'testing', files: [skillFile('clean', '# Clean')] },
    });
    expect(clean.status).toBe(201);
    const lines = '\u200b\n'.repeat(256 * 1024 - 1);
    const files = [skillFile('zero-width', '# Zero width'), ...[1, 2, 3, 4].map((i) => ({ filename: `references/part-${i}.md`, content: lines }))];
    const started = performance.now();
    const publish = call(base, '/api/publish', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: { name: 'zero-width', slug: 'zero-width', description: 'd', category: 'testing', files },
    });
    let done = false;
    void publish.finally(() => {
      done = true;
    });
    const healthTimes: number[] = [];
    // Give the body time to arrive and the scan time to start, then ask while it runs.
    await new Promise((resolve) => setTimeout(resolve, 300));
    while (!done && performance.now() - started < 60_000) {
      const asked = performance.now();
      const health = await call(base, '/api/health');
      expect(health.status).toBe(200);
      healthTimes.push(performance.now() - asked);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const answer = await publish;
    expect(answer.status).toBe(201);
    expect(answer.body.scan.verdict).toBe('suspicious');
    // Several answers came while the publish waited, none held behind the scan.
    expect(healthTimes.length).toBeGreaterThan(2);
    expect(Math.max(...healthTimes)).toBeLessThan(1000);
  });
});
