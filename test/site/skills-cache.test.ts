import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSkills, type SkillFileRenderer } from '../../site/src/data/skills-cache.ts';
import { sourceFromEnv, type StaticSource } from '../../site/src/data/source.ts';
import { Client, createTestStack, json, skillBody, skillFile, type TestStack, withKey } from '../support/stack.ts';

/**
 * Where the site build reads its data: the static bucket (local runtime) or a running
 * Skillpress over HTTP (a CI build of production), and the cache that makes it incremental.
 */
let stack: TestStack;
let key: string;
let base: string;
let close: () => void;
const slugs: string[] = [];

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
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

describe('the incremental skill cache', () => {
  it('reads only the registry documents of skills that changed since the last build', async () => {
    const source = sources()[0]![1];
    let reads = 0;
    const counting: StaticSource = {
      ...source,
      catalog: () => source.catalog(),
      registry: (slug) => {
        reads += 1;
        return source.registry(slug);
      },
    };
    const dir = mkdtempSync(join(tmpdir(), 'skillpress-skill-cache-'));
    const cacheFile = join(dir, 'skills.json');
    try {
      const first = await loadSkills(counting, cacheFile);
      expect(reads).toBe(3);
      expect(first.skills.map((s) => s.slug).sort()).toEqual([...slugs].sort());

      reads = 0;
      expect((await loadSkills(counting, cacheFile)).read).toBe(0);
      expect(reads).toBe(0);

      const changed = first.skills.find((s) => s.slug === slugs[1])!;
      expect(
        (await withKey(stack, key, `/api/skills/${changed.id}/versions`, { body: { version: '1.1.0', changelog: 'More', files: [skillFile(changed.slug)] } }))
          .status,
      ).toBe(201);
      await stack.idle();
      const third = await loadSkills(counting, cacheFile);
      expect(reads).toBe(1);
      expect(third.skills.find((s) => s.slug === slugs[1])!.currentVersion).toBe('1.1.0');
      // The next build sees the change too: the cache was written with it.
      reads = 0;
      expect((await loadSkills(counting, cacheFile)).skills.find((s) => s.slug === slugs[1])!.currentVersion).toBe('1.1.0');
      expect(reads).toBe(0);

      writeFileSync(cacheFile, '{not json');
      reads = 0;
      expect((await loadSkills(counting, cacheFile)).skills).toHaveLength(3);
      expect(reads).toBe(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('renders each free skill’s SKILL.md once, from its bundle, and again only under another renderer version', async () => {
    const source = sources()[0]![1];
    const rendered: string[] = [];
    const renderer = (version: string): SkillFileRenderer => ({
      version,
      render: (text) => {
        rendered.push(text);
        return { frontMatter: [], html: `<p>${version}</p>`, truncated: false };
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'skillpress-skill-cache-'));
    const cacheFile = join(dir, 'skills.json');
    try {
      const first = await loadSkills(source, cacheFile, renderer('a'));
      expect(rendered).toHaveLength(3);
      expect(rendered.every((text) => text.startsWith('---\nname: '))).toBe(true);
      expect(slugs.map((slug) => first.skillFiles.get(slug)?.html)).toEqual(['<p>a</p>', '<p>a</p>', '<p>a</p>']);

      rendered.length = 0;
      expect((await loadSkills(source, cacheFile, renderer('a'))).skillFiles.size).toBe(3);
      expect(rendered).toHaveLength(0);

      const again = await loadSkills(source, cacheFile, renderer('b'));
      expect(rendered).toHaveLength(3);
      expect([...again.skillFiles.values()].map((r) => r.html)).toEqual(['<p>b</p>', '<p>b</p>', '<p>b</p>']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
