import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../support/cli-process.ts';
import { call, type ServerProcess, startServer } from '../support/server-process.ts';
import { skillFile } from '../support/skill-md.ts';

/**
 * Versions whose delivery is over Lambda's 6 MB response, installed as people install them: the
 * `skillpress` executable against `npm start`, with the real limit. The delivery answers 303 and
 * the client follows it, to the bundle (free) or to a pre-signed link into the private content
 * bucket (paid), and checks the integrity as it checks any delivery; each install counts once.
 */

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const work = mkdtempSync(join(tmpdir(), 'skillpress-large-'));
const env = { HOME: join(work, 'home'), XDG_CONFIG_HOME: join(work, 'config'), XDG_CACHE_HOME: join(work, 'cache') };
let server: ServerProcess;
let base: string;
let apiKey: string;
let cookie: string;

beforeAll(async () => {
  server = await startServer({ DATA_DIR: join(work, 'data') });
  base = server.baseUrl;
  const login = await call(base, '/api/auth/dev-login', { method: 'POST', body: { login: 'alice' }, headers: { origin: base } });
  cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  apiKey = (await call(base, '/api/api-keys', { method: 'POST', body: { name: 'large' }, headers: { cookie, origin: base } })).body.key;
});

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** Five binary files of 920,000 bytes: 4.6 MB, about 6.13 MB as a delivery (base64), under the 6 MiB publish body. */
function largeVersion(slug: string): { filename: string; content: string; encoding?: string }[] {
  const parts = Array.from({ length: 5 }, (_, i) => ({ filename: `data/part-${i}.bin`, content: randomBytes(920_000).toString('base64'), encoding: 'base64' }));
  return [skillFile(slug, '# Large\n', 'A large skill.'), ...parts];
}

async function publishLarge(slug: string, extra: Record<string, unknown> = {}): Promise<{ id: string; files: ReturnType<typeof largeVersion> }> {
  const files = largeVersion(slug);
  const res = await call(base, '/api/publish', {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    body: { name: slug, slug, description: 'A large skill.', category: 'testing', files, ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const deadline = Date.now() + 120_000;
  while ((await call(base, `/api/registry/${slug}`)).status !== 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return { id: res.body.id, files };
}

/** Where a delivery is sent, asked with HEAD: neither counted nor spending a token. */
async function locationOf(path: string): Promise<string | null> {
  const res = await fetch(base + path, { method: 'HEAD', redirect: 'manual' });
  expect(res.status).toBe(303);
  return res.headers.get('location');
}

async function installs(id: string): Promise<{ total: number; bySource: Record<string, number> }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await call(base, `/api/analytics/${id}`, { headers: { cookie } });
    if (res.body.total > 0 || Date.now() > deadline) return res.body;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function expectInstalled(dir: string, slug: string, files: ReturnType<typeof largeVersion>): void {
  for (const file of files) {
    const written = readFileSync(join(dir, '.agents', 'skills', slug, file.filename));
    expect(written.equals(Buffer.from(file.content, file.encoding === 'base64' ? 'base64' : 'utf8')), file.filename).toBe(true);
  }
}

const project = (name: string) => {
  const dir = join(work, 'projects', name);
  mkdirSync(dir, { recursive: true });
  return dir;
};

describe('installing a version over 6 MB', () => {
  it('installs a free one from its bundle, verified, counted once', async () => {
    const slug = 'large-free';
    const { id, files } = await publishLarge(slug);
    const delivery = await fetch(`${base}/api/deliver/${id}`, { method: 'HEAD', redirect: 'manual' });
    expect(Number(delivery.headers.get('content-length') ?? 0)).toBe(0);
    expect(await locationOf(`/api/deliver/${id}`)).toBe(`/bundles/${slug}/1.0.0.json`);
    const dir = project('free');
    const result = await runCli(['install', slug, '--registry', base, '--json'], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    expectInstalled(dir, slug, files);
    const counted = await installs(id);
    expect(counted.total).toBe(1);
    expect(counted.bySource.cli).toBe(1);
  });

  it('refuses a paid one without a token, and installs it with one through a pre-signed link, verified, counted once', async () => {
    const slug = 'large-paid';
    const { id, files } = await publishLarge(slug, { paid: true, price: { amount: 500, currency: 'USD' } });
    const refused = await runCli(['install', slug, '--registry', base], { cwd: project('paid-refused'), env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('payment_required');

    const minted = await call(base, `/api/skills/${id}/download-tokens`, { method: 'POST', body: { maxUses: 2 }, headers: { cookie, origin: base } });
    const token: string = minted.body.token;
    // A HEAD makes no link: only the GET that spends a use does (docs/api.md §7.6).
    expect(await locationOf(`/api/deliver/${id}?token=${token}`)).toBeNull();
    const dir = project('paid');
    const result = await runCli(['install', slug, '--token', token, '--registry', base, '--json'], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    expectInstalled(dir, slug, files);
    expect(result.stdout).not.toContain('X-Amz-Signature');
    expect(server.output()).not.toContain('X-Amz-Signature');
    const counted = await installs(id);
    expect(counted.total).toBe(1);
    const { tokens } = (await call(base, `/api/skills/${id}/download-tokens`, { headers: { cookie } })).body;
    expect(tokens).toEqual([expect.objectContaining({ uses: 1 })]);
  });
});
