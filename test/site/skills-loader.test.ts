import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skillsLoader } from '../../site/src/data/skills-loader.ts';
import { sourceFromEnv, type StaticSource } from '../../site/src/data/source.ts';
import { Client, createTestStack, json, skillBody, type TestStack, withKey } from '../support/stack.ts';

/**
 * Where the site build reads its data: the static bucket (local runtime) or a running
 * Skillpress over HTTP (a CI build of production), and the incremental content loader.
 */
let stack: TestStack;
let key: string;
let base: string;
let close: () => void;
const slugs: string[] = [];

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000' });
  key = await (await Client.signIn(stack, 'alice')).createKey();
  for (let i = 0; i < 3; i++) slugs.push((await json(await withKey(stack, key, '/api/publish', { body: skillBody() }))).slug);
  await stack.idle();
  const server = serve({ fetch: stack.runtime.app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close?.());

const sources = (): [string, StaticSource][] => [
  ['the static bucket', sourceFromEnv({ SKILLPRESS_DATA: `s3://${stack.config.staticBucket}`, S3_ENDPOINT: stack.config.s3Endpoint })],
  ['a running server', sourceFromEnv({ SKILLPRESS_DATA: base })],
];

describe('the site data source', () => {
  it('reads the catalog and registry documents, validated, from the bucket or over HTTP', async () => {
    for (const [what, source] of sources()) {
      const catalog = await source.catalog();
      expect(catalog?.skills.map((s) => s.slug).sort(), what).toEqual([...slugs].sort());
      const doc = await source.registry(slugs[0]!);
      expect(doc, what).toMatchObject({ slug: slugs[0], currentVersion: '1.0.0', versions: [{ version: '1.0.0' }] });
      expect(await source.registry('no-such-skill'), what).toBeUndefined();
    }
  });

  it('is empty without SKILLPRESS_DATA and refuses what it cannot read', async () => {
    expect(await sourceFromEnv({}).catalog()).toBeUndefined();
    expect(() => sourceFromEnv({ SKILLPRESS_DATA: 'ftp://example' })).toThrow(/s3:\/\/<bucket> or an http\(s\) origin/);
  });
});

/** Just enough of Astro's DataStore for the loader. */
function memoryStore() {
  const entries = new Map<string, { id: string; data: Record<string, unknown>; digest?: string }>();
  return {
    entries,
    get: (id: string) => entries.get(id),
    set: (entry: { id: string; data: Record<string, unknown>; digest?: string }) => {
      entries.set(entry.id, entry);
      return true;
    },
    delete: (id: string) => void entries.delete(id),
    keys: () => [...entries.keys()],
  };
}

describe('the incremental skills loader', () => {
  it('reads only the registry documents of skills that changed since the last build', async () => {
    const source = sources()[0]![1];
    let reads = 0;
    const counting: StaticSource = { ...source, catalog: () => source.catalog(), registry: (slug) => ((reads += 1), source.registry(slug)) };
    const store = memoryStore();
    const logger = { info: () => {} };
    const load = () => skillsLoader(counting).load({ store, logger } as never);

    await load();
    expect(reads).toBe(3);
    expect([...store.entries.keys()].sort()).toEqual([...slugs].sort());

    reads = 0;
    await load();
    expect(reads).toBe(0);

    const id = store.get(slugs[1]!)!.data.id as string;
    expect((await withKey(stack, key, `/api/skills/${id}/versions`, { body: { version: '1.1.0', changelog: 'More' } })).status).toBe(201);
    await stack.idle();
    await load();
    expect(reads).toBe(1);
    expect(store.get(slugs[1]!)!.data.currentVersion).toBe('1.1.0');
  });
});
