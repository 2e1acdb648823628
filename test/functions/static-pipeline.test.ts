import { ListObjectsV2Command, GetObjectCommand, DeleteObjectCommand } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { Rebuilder } from '#functions/rebuild/rebuilder';
import { seedSkills } from '#scripts/seed-store';
import { OBSERVED_WITHIN_MS, untilObserved } from '../support/behaviour.ts';
import { Client, createTestStack, json, skillBody, skillFile, type TestStack, withKey } from '../support/stack.ts';

let stack: TestStack;
let key: string;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
  key = await (await Client.signIn(stack, 'alice')).createKey();
});

async function publish(s: TestStack, k: string, overrides: Record<string, unknown> = {}) {
  const res = await withKey(s, k, '/api/publish', { body: skillBody(overrides) });
  expect(res.status).toBe(201);
  return json<{ id: string; slug: string }>(res);
}

async function addVersion(s: TestStack, k: string, skill: { id: string; slug: string }, version: string, files = [skillFile(skill.slug, `# ${version}`)]) {
  const res = await withKey(s, k, `/api/skills/${skill.id}/versions`, { body: { version, changelog: `Changes in ${version}`, files } });
  expect(res.status).toBe(201);
}

let twoFilesCount = 0;
/** A skill of more than its SKILL.md, which the discovery index lists as an archive (its slug is given, so its SKILL.md can name it). */
function twoFiles(): { slug: string; files: { filename: string; content: string }[] } {
  const slug = `two-files-${++twoFilesCount}-${Date.now().toString(36)}`;
  return {
    slug,
    files: [skillFile(slug, '# Two\n'), { filename: 'notes.md', content: 'notes' }],
  };
}

async function get(s: TestStack, path: string, headers: Record<string, string> = {}) {
  const res = await s.request(path, { headers });
  return {
    res,
    body: (res.status === 200 && (res.headers.get('content-type') ?? '').includes('json') && !res.headers.get('content-encoding')
      ? await res.json()
      : undefined) as any,
  };
}

async function staticTree(s: TestStack): Promise<Map<string, Buffer>> {
  const out = await s.deps.s3.send(new ListObjectsV2Command({ Bucket: s.config.staticBucket }));
  const tree = new Map<string, Buffer>();
  for (const object of out.Contents ?? []) {
    const body = await s.deps.s3.send(new GetObjectCommand({ Bucket: s.config.staticBucket, Key: object.Key! }));
    tree.set(object.Key!, Buffer.from(await body.Body!.transformToByteArray()));
  }
  return tree;
}

describe('publishing emits the static files', () => {
  it(
    'writes registry, versions list, bundle, catalog entry and discovery archive for a new free skill',
    async () => {
      const hello = skillFile('hello-static-files', '# Hello', 'Says hello; the discovery index takes this from SKILL.md');
      const { id, slug } = await publish(stack, key, {
        slug: 'hello-static-files',
        files: [hello, { filename: 'scripts/run.sh', content: 'echo hi', executable: true }],
      });
      // Its script runs in the sandbox first: the full documents are written once it is cleared.
      await untilObserved(stack, key, id);
      const registry = (await get(stack, `/api/registry/${slug}`)).body;
      expect(registry).toMatchObject({
        id,
        slug,
        currentVersion: '1.0.0',
        paid: false,
        delivery: { url: `/api/deliver/${id}`, bundle: `/bundles/${slug}/1.0.0.json` },
      });
      expect(registry.files.map((f: { filename: string }) => f.filename)).toEqual(['SKILL.md', 'scripts/run.sh']);
      const scan = { verdict: 'clean', rulesVersion: expect.any(String), findings: [] };
      expect(registry.versions).toEqual([
        {
          version: '1.0.0',
          changelog: '',
          publishedAt: expect.any(String),
          publishedBy: 'alice',
          integrity: expect.stringMatching(/^sha256-/),
          scan,
          scannedAt: registry.versions[0].publishedAt,
          signature: { keyid: expect.stringMatching(/^SHA256:/), sig: expect.any(String), format: 3 },
          // Its run in the sandbox cleared it: `echo hi` does nothing outside its folder.
          behaviour: 'cleared',
          effects: { reads: [], writes: [], network: [], executes: [], asks: [] },
        },
      ]);
      expect(registry.scan).toEqual(scan);

      const bundle = await stack.request(`/bundles/${slug}/1.0.0.json`);
      const bundleText = await bundle.text();
      expect(JSON.parse(bundleText)).toEqual({ files: [hello, { filename: 'scripts/run.sh', content: 'echo hi', executable: true }] });
      expect(`sha256-${createHash('sha256').update(bundleText).digest('base64')}`).toBe(registry.versions[0].integrity);

      const catalog = (await get(stack, '/.well-known/skills.json')).body;
      expect(catalog.skills.find((s: { slug: string }) => s.slug === slug)).toMatchObject({ id, currentVersion: '1.0.0', registry: `/api/registry/${slug}` });
      expect(catalog.count).toBe(catalog.skills.length);

      const index = (await get(stack, '/.well-known/agent-skills/index.json')).body;
      const entry = index.skills.find((s: { name: string }) => s.name === slug);
      expect(entry).toMatchObject({
        type: 'archive',
        version: '1.0.0',
        url: `/.well-known/agent-skills/${slug}/1.0.0.tar.gz`,
        description: 'Says hello; the discovery index takes this from SKILL.md',
      });
      const archive = Buffer.from(await (await stack.request(entry.url)).arrayBuffer());
      expect(`sha256:${createHash('sha256').update(archive).digest('hex')}`).toBe(entry.digest);
    },
    OBSERVED_WITHIN_MS,
  );

  it('shows a new version in the registry and catalog, keeping 5 versions newest first', async () => {
    const { id, slug } = await publish(stack, key);
    for (const v of ['1.1.0', '1.2.0', '1.3.0', '1.4.0', '1.5.0', '1.6.0']) await addVersion(stack, key, { id, slug }, v);
    await stack.idle();
    const registry = (await get(stack, `/api/registry/${slug}`)).body;
    expect(registry.currentVersion).toBe('1.6.0');
    expect(registry.versions.map((v: { version: string }) => v.version)).toEqual(['1.6.0', '1.5.0', '1.4.0', '1.3.0', '1.2.0']);
    expect(registry.versions[0].changelog).toBe('Changes in 1.6.0');
    const all = (await get(stack, `/api/registry/${slug}/versions`)).body;
    expect(all.versions).toHaveLength(7);
    const catalog = (await get(stack, '/.well-known/skills.json')).body;
    expect(catalog.skills.find((s: { slug: string }) => s.slug === slug).currentVersion).toBe('1.6.0');
    for (const v of ['1.0.0', '1.3.0', '1.6.0']) expect((await stack.request(`/bundles/${slug}/${v}.json`)).status).toBe(200);
  });

  it('keeps the catalog on the current version after a backport, and bundles the backport', async () => {
    const { id, slug } = await publish(stack, key);
    await addVersion(stack, key, { id, slug }, '2.0.0');
    await addVersion(stack, key, { id, slug }, '1.0.1');
    await stack.idle();
    const registry = (await get(stack, `/api/registry/${slug}`)).body;
    expect(registry.currentVersion).toBe('2.0.0');
    expect(registry.versions[0].version).toBe('1.0.1');
    expect((await stack.request(`/bundles/${slug}/1.0.1.json`)).status).toBe(200);
    const index = (await get(stack, '/.well-known/agent-skills/index.json')).body;
    expect(index.skills.find((s: { name: string }) => s.name === slug).version).toBe('2.0.0');
  });

  it('rewrites only the changed skill, the two indexes and its shards of the search index, however many skills exist', async () => {
    const own = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
    const k = await (await Client.signIn(own, 'bob')).createKey();
    for (let i = 0; i < 12; i++) await publish(own, k);
    await own.idle();
    const written: string[] = [];
    own.deps.staticStore.onWrite((objectKey) => written.push(objectKey));
    const { slug } = await publish(own, k);
    await own.idle();
    expect(written.sort()).toEqual(
      [
        `registry/${slug}.json`,
        `registry/${slug}/versions.json`,
        `bundles/${slug}/1.0.0.json`,
        // Its SKILL.md alone: the discovery index lists the file itself, not an archive.
        `.well-known/agent-skills/${slug}/1.0.0/SKILL.md`,
        // Its own index under its page, and its current SKILL.md without a version.
        `skills/${slug}/.well-known/agent-skills/index.json`,
        `.well-known/agent-skills/${slug}/SKILL.md`,
        // The catalog: the one page the skill is in and the index, then the whole catalog assembled from them.
        'catalog/page-0.json',
        'catalog/index.json',
        '.well-known/skills.json',
        '.well-known/skills.json.br',
        '.well-known/skills.json.gz',
        '.well-known/agent-skills/index.json',
        '.well-known/skills/index.json',
        // The search index's head (which holds every skill's listing at this size) and the text shard of its SKILL.md.
        '.well-known/skillpress/search.json',
        '.well-known/skillpress/search/text-0.json',
      ].sort(),
    );
  });
});

describe('discovery details', () => {
  it("gives a skill its own index under its page, its current SKILL.md without a version, and the index at v0.1's path", async () => {
    const skill = twoFiles();
    const published = await publish(stack, key, { slug: skill.slug, files: skill.files });
    await stack.idle();
    const root = (await get(stack, '/.well-known/agent-skills/index.json')).body;
    const entry = root.skills.find((e: { name: string }) => e.name === skill.slug);
    const scoped = await get(stack, `/skills/${skill.slug}/.well-known/agent-skills/index.json`);
    expect([scoped.res.status, scoped.res.headers.get('access-control-allow-origin')]).toEqual([200, '*']);
    // The same entry, its artifact marked as named by the skill's own index (a download through it is an install).
    expect(scoped.body).toEqual({ $schema: root.$schema, skills: [{ ...entry, url: `${entry.url}?via=skill-index` }] });
    expect((await stack.request(scoped.body.skills[0].url)).status).toBe(200);
    expect((await get(stack, '/.well-known/skills/index.json')).body).toEqual(root);
    const current = await stack.request(`/.well-known/agent-skills/${skill.slug}/SKILL.md`);
    expect([current.status, current.headers.get('cache-control'), await current.text()]).toEqual([200, 'public, max-age=300', skill.files[0]!.content]);

    // A new version moves the unversioned SKILL.md; the versioned archive of the old one stays.
    const next = skillFile(skill.slug, '# Two, again\n');
    await addVersion(stack, key, published, '1.1.0', [next, skill.files[1]!]);
    await stack.idle();
    expect(await (await stack.request(`/.well-known/agent-skills/${skill.slug}/SKILL.md`)).text()).toBe(next.content);
    expect((await get(stack, `/skills/${skill.slug}/.well-known/agent-skills/index.json`)).body.skills[0].version).toBe('1.1.0');
  });

  it("prefixes a deprecated skill's description in the index with its message, and drops the prefix when undone", async () => {
    const skill = twoFiles();
    const { id } = await publish(stack, key, { slug: skill.slug, files: skill.files, description: 'Two files' });
    expect((await withKey(stack, key, `/api/skills/${id}/deprecate`, { body: { message: 'Use three-files' } })).status).toBe(200);
    await stack.idle();
    const described = async (path: string) => (await get(stack, path)).body.skills.find((e: { name: string }) => e.name === skill.slug).description;
    expect(await described('/.well-known/agent-skills/index.json')).toMatch(/^\[deprecated: Use three-files\] /);
    expect(await described(`/skills/${skill.slug}/.well-known/agent-skills/index.json`)).toMatch(/^\[deprecated: Use three-files\] /);
    expect((await withKey(stack, key, `/api/skills/${id}/deprecate`, { method: 'DELETE' })).status).toBe(200);
    await stack.idle();
    expect(await described('/.well-known/agent-skills/index.json')).not.toContain('[deprecated');
  });

  it('answers a preflight for a static file, so a browser on any site may read it', async () => {
    for (const path of ['/.well-known/agent-skills/index.json', '/api/registry/anything', '/cli/skillpress.tgz']) {
      const res = await stack.request(path, { method: 'OPTIONS', headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' } });
      expect([res.status, res.headers.get('access-control-allow-origin'), res.headers.get('access-control-allow-methods')], path).toEqual([
        204,
        '*',
        'GET, HEAD, OPTIONS',
      ]);
    }
    // The API answers no preflight (it is not readable from other sites).
    expect((await stack.request('/api/api-keys', { method: 'OPTIONS' })).status).toBe(404);
  });
});

describe('what a rebuild writes, and in which order', () => {
  it('writes bundles before the registry that points at them, and the SKILL.md or archive before the index that names it', async () => {
    const order: string[] = [];
    const stop = stack.deps.staticStore.onWrite((objectKey) => order.push(objectKey));
    const { id, slug } = await publish(stack, key);
    await addVersion(stack, key, { id, slug }, '1.1.0');
    await stack.idle();
    const at = (objectKey: string) => order.lastIndexOf(objectKey);
    expect(at(`bundles/${slug}/1.1.0.json`)).toBeGreaterThanOrEqual(0);
    expect(at(`bundles/${slug}/1.1.0.json`)).toBeLessThan(at(`registry/${slug}.json`));
    expect(at(`bundles/${slug}/1.1.0.json`)).toBeLessThan(at(`registry/${slug}/versions.json`));
    expect(at(`.well-known/agent-skills/${slug}/1.1.0/SKILL.md`)).toBeGreaterThanOrEqual(0);
    expect(at(`.well-known/agent-skills/${slug}/1.1.0/SKILL.md`)).toBeLessThan(at('.well-known/agent-skills/index.json'));
    // The skill's own registry file is complete before the shared catalog is patched.
    expect(at(`registry/${slug}.json`)).toBeLessThan(at('.well-known/skills.json'));
    await addVersion(stack, key, { id, slug }, '1.2.0', [skillFile(slug, '# 1.2.0\n'), { filename: 'notes.md', content: 'more' }]);
    await stack.idle();
    stop();
    expect(at(`.well-known/agent-skills/${slug}/1.2.0.tar.gz`)).toBeGreaterThanOrEqual(0);
    expect(at(`.well-known/agent-skills/${slug}/1.2.0.tar.gz`)).toBeLessThan(at('.well-known/agent-skills/index.json'));
  });

  it("writes only the new version's bundle of a skill with many, whether or not the rebuilder saw the others", async () => {
    const { id, slug } = await publish(stack, key);
    for (const v of ['1.1.0', '1.2.0', '1.3.0', '1.4.0', '1.5.0', '1.6.0']) await addVersion(stack, key, { id, slug }, v);
    await stack.idle();
    const written: string[] = [];
    const stop = stack.deps.staticStore.onWrite((objectKey) => written.push(objectKey));
    await addVersion(stack, key, { id, slug }, '1.7.0');
    await stack.idle();
    // A rebuilder that never saw this skill (another container, or after a restart) asks the bucket.
    await new Rebuilder(stack.deps).rebuild([id]);
    stop();
    expect(written.filter((k) => k.startsWith('bundles/'))).toEqual([`bundles/${slug}/1.7.0.json`]);
    const catalog = (await get(stack, '/.well-known/skills.json')).body;
    expect(catalog.skills.find((s: { slug: string }) => s.slug === slug).currentVersion).toBe('1.7.0');
  });
  it('learns every bundle the versions document lists, even of versions newer than the rebuilder', async () => {
    const { id, slug } = await publish(stack, key);
    await stack.idle();
    // Started before the next two versions; the stack's own rebuilder bundles them meanwhile.
    const earlier = new Rebuilder(stack.deps);
    for (const v of ['1.1.0', '1.2.0']) await addVersion(stack, key, { id, slug }, v);
    await stack.idle();
    const written: string[] = [];
    const stop = stack.deps.staticStore.onWrite((objectKey) => written.push(objectKey));
    await earlier.rebuild([id]);
    stop();
    // The versions document lists all three (the stack's rebuilder wrote it after their bundles).
    expect(written.filter((k) => k.startsWith('bundles/'))).toEqual([]);
  });

  it('learns older bundles from the versions document, and asks the bucket about versions it does not list', async () => {
    const { id, slug } = await publish(stack, key);
    for (const v of ['1.1.0', '1.2.0', '1.3.0', '1.4.0', '1.5.0', '1.6.0']) await addVersion(stack, key, { id, slug }, v);
    await stack.idle();
    // As after rebuilds that failed before their documents: the list stops at 1.4.0, and 1.5.0's bundle is gone.
    const versionsKey = `registry/${slug}/versions.json`;
    const document = JSON.parse(Buffer.from((await stack.deps.staticStore.get(versionsKey))!).toString('utf8'));
    document.versions = document.versions.filter((v: { version: string }) => !['1.5.0', '1.6.0'].includes(v.version));
    await stack.deps.staticStore.put(versionsKey, JSON.stringify(document));
    await stack.deps.s3.send(new DeleteObjectCommand({ Bucket: stack.config.staticBucket, Key: `bundles/${slug}/1.5.0.json` }));

    const written: string[] = [];
    const stop = stack.deps.staticStore.onWrite((objectKey) => written.push(objectKey));
    const listed = vi.spyOn(stack.deps.staticStore, 'list');
    const asked = vi.spyOn(stack.deps.staticStore, 'metadata');
    let calls: { listed: unknown[][]; asked: string[] };
    try {
      await new Rebuilder(stack.deps).rebuild([id]);
    } finally {
      stop();
      calls = { listed: [...listed.mock.calls], asked: asked.mock.calls.map(([objectKey]) => objectKey) };
      listed.mockRestore();
      asked.mockRestore();
    }
    // 1.5.0 and 1.6.0 get a HEAD each; 1.5.0, found missing, is written again. No folder listing.
    expect(calls.listed).toEqual([]);
    expect(calls.asked.filter((k) => k.startsWith('bundles/')).sort()).toEqual([`bundles/${slug}/1.5.0.json`, `bundles/${slug}/1.6.0.json`]);
    expect(written.filter((k) => k.startsWith('bundles/'))).toEqual([`bundles/${slug}/1.5.0.json`]);
    expect((await get(stack, `/bundles/${slug}/1.5.0.json`)).res.status).toBe(200);
  });

  it('takes older bundles as present when told the bucket was complete at its start, and still asks about later versions', async () => {
    const { id, slug } = await publish(stack, key);
    for (const v of ['1.1.0', '1.2.0']) await addVersion(stack, key, { id, slug }, v);
    await stack.idle();
    const trusting = new Rebuilder(stack.deps, { bundlesCompleteAtStart: true });
    const lookups = () => {
      const read = vi.spyOn(stack.deps.staticStore, 'get');
      const listed = vi.spyOn(stack.deps.staticStore, 'list');
      const asked = vi.spyOn(stack.deps.staticStore, 'metadata');
      const written: string[] = [];
      const stop = stack.deps.staticStore.onWrite((objectKey) => written.push(objectKey));
      return () => {
        stop();
        const seen = {
          read: read.mock.calls.map(([k]) => k),
          listed: listed.mock.calls.length,
          asked: asked.mock.calls.map(([k]) => k),
          bundles: written.filter((k) => k.startsWith('bundles/')),
        };
        for (const spy of [read, listed, asked]) spy.mockRestore();
        return seen;
      };
    };

    // Every version predates the rebuilder: nothing is read or asked about its bundles.
    let done = lookups();
    await trusting.rebuild([id]);
    expect(done()).toEqual({ read: [], listed: 0, asked: [], bundles: [] });

    // Two versions after its start; the versions document (tampered) no longer lists 1.3.0, whose bundle is gone.
    for (const v of ['1.3.0', '1.4.0']) await addVersion(stack, key, { id, slug }, v);
    await stack.idle();
    const versionsKey = `registry/${slug}/versions.json`;
    const document = JSON.parse(Buffer.from((await stack.deps.staticStore.get(versionsKey))!).toString('utf8'));
    document.versions = document.versions.filter((v: { version: string }) => v.version !== '1.3.0');
    await stack.deps.staticStore.put(versionsKey, JSON.stringify(document));
    await stack.deps.s3.send(new DeleteObjectCommand({ Bucket: stack.config.staticBucket, Key: `bundles/${slug}/1.3.0.json` }));
    done = lookups();
    await trusting.rebuild([id]);
    // 1.3.0 is looked up (the document, then a HEAD) and written again; the document lists 1.4.0.
    expect(done()).toEqual({ read: [versionsKey], listed: 0, asked: [`bundles/${slug}/1.3.0.json`], bundles: [`bundles/${slug}/1.3.0.json`] });
    expect((await get(stack, `/bundles/${slug}/1.3.0.json`)).res.status).toBe(200);
  });
});

describe('several rebuilders (Lambda containers side by side)', () => {
  /** A skill stored and rebuilt by another rebuilder (another container): this process never saw it. */
  async function rebuiltElsewhere(own: TestStack, slugPrefix: string) {
    const [seeded] = await seedSkills(own.deps, { count: 1, slugPrefix });
    await new Rebuilder(own.deps).rebuild([seeded!.id]);
    return seeded!;
  }

  it("never drops another rebuilder's catalog entries", async () => {
    const own = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
    const k = await (await Client.signIn(own, 'erin')).createKey();
    const a = await publish(own, k);
    await own.idle();
    // Another container rebuilds a skill this process never heard of.
    const seeded = await rebuiltElsewhere(own, 'elsewhere');
    const b = await publish(own, k);
    await own.idle();
    const slugs = (await get(own, '/.well-known/skills.json')).body.skills.map((s: { slug: string }) => s.slug);
    expect(slugs).toEqual(expect.arrayContaining([a.slug, b.slug, seeded.slug]));
    const names = (await get(own, '/.well-known/agent-skills/index.json')).body.skills.map((s: { name: string }) => s.name);
    expect(names).toEqual(expect.arrayContaining([a.slug, b.slug, seeded.slug]));
  });

  it('reads no index back while it wrote them last, and each once another rebuilder has', async () => {
    const own = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
    const k = await (await Client.signIn(own, 'gina')).createKey();
    const a = await publish(own, k);
    await own.idle();
    const asked: string[] = [];
    const store = own.deps.staticStore;
    const realGet = store.getIfChanged.bind(store);
    store.getIfChanged = (objectKey, etag) => {
      asked.push(objectKey);
      return realGet(objectKey, etag);
    };
    const b = await publish(own, k);
    await own.idle();
    // The index lock's memo names the ETags this process wrote: nothing to ask the bucket.
    expect(asked).toEqual([]);
    const seeded = await rebuiltElsewhere(own, 'memo');
    asked.length = 0;
    const c = await publish(own, k);
    await own.idle();
    expect(asked.sort()).toEqual([
      '.well-known/agent-skills/index.json',
      '.well-known/skillpress/search.json',
      '.well-known/skillpress/search/text-0.json',
      'catalog/index.json',
      'catalog/page-0.json',
    ]);
    const slugs = (await get(own, '/.well-known/skills.json')).body.skills.map((s: { slug: string }) => s.slug);
    expect(slugs).toEqual(expect.arrayContaining([a.slug, b.slug, c.slug, seeded.slug]));
  });

  it('recovers from a failed catalog write without losing what another rebuilder wrote meanwhile', async () => {
    const own = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
    const k = await (await Client.signIn(own, 'frank')).createKey();
    const a = await publish(own, k);
    await own.idle();
    // Another container adds a skill to both indexes.
    const seeded = await rebuiltElsewhere(own, 'meanwhile');
    const store = own.deps.staticStore;
    const realPut = store.put.bind(store);
    let fail = true;
    store.put = async (objectKey, ...rest) => {
      if (fail && objectKey === '.well-known/skills.json') {
        fail = false;
        throw new Error('injected S3 outage');
      }
      return realPut(objectKey, ...rest);
    };
    const b = await publish(own, k);
    await own.idle();
    expect(fail).toBe(false);
    const slugs = (await get(own, '/.well-known/skills.json')).body.skills.map((s: { slug: string }) => s.slug);
    expect(slugs).toEqual(expect.arrayContaining([a.slug, b.slug, seeded.slug]));
    const names = (await get(own, '/.well-known/agent-skills/index.json')).body.skills.map((s: { name: string }) => s.name);
    expect(names).toEqual(expect.arrayContaining([a.slug, b.slug, seeded.slug]));
  });
});

describe('paid skills', () => {
  it('list files and hashes but put no content anywhere in the static tree', async () => {
    const secret = `PAID-SECRET-${Date.now()}-a1b2c3`;
    const binarySecret = Buffer.from(`BINARY-${secret}`).toString('base64');
    const paidSlug = `paid-${Date.now()}`;
    const { id, slug } = await publish(stack, key, {
      paid: true,
      slug: paidSlug,
      price: { amount: 4200, currency: 'USD' },
      files: [skillFile(paidSlug, `# Paid\n${secret}\n`), { filename: 'data.bin', content: binarySecret, encoding: 'base64' }],
    });
    await addVersion(stack, key, { id, slug }, '1.1.0', [skillFile(paidSlug, `# Paid v2\n${secret}\n`)]);
    await stack.idle();
    const registry = (await get(stack, `/api/registry/${slug}`)).body;
    expect(registry.paid).toBe(true);
    expect(registry.price).toEqual({ amount: 4200, currency: 'USD' });
    expect(registry.delivery).toEqual({ url: `/api/deliver/${id}` });
    expect(registry.files).toEqual([{ filename: 'SKILL.md', size: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    expect((await stack.request(`/bundles/${slug}/1.0.0.json`)).status).toBe(404);
    const index = (await get(stack, '/.well-known/agent-skills/index.json')).body;
    expect(index.skills.some((s: { name: string }) => s.name === slug)).toBe(false);

    const tree = await staticTree(stack);
    expect(tree.size).toBeGreaterThan(3);
    for (const [objectKey, body] of tree) {
      const plain = objectKey.endsWith('.tar.gz') ? gunzipSync(body) : body;
      for (const needle of [secret, binarySecret, Buffer.from(secret).toString('base64')]) {
        expect(plain.includes(needle), `${objectKey} contains paid content`).toBe(false);
      }
    }
  });
});

describe('serving like the CDN', () => {
  it('answers with the cache headers of docs/api.md §11, a strong ETag and 304 on If-None-Match', async () => {
    const { slug } = await publish(stack, key, twoFiles());
    const lone = await publish(stack, key);
    await stack.idle();
    const cases: [string, string][] = [
      [`/api/registry/${slug}`, 'public, max-age=60, s-maxage=300, stale-while-revalidate=60'],
      [`/api/registry/${slug}/versions`, 'public, max-age=60, s-maxage=300, stale-while-revalidate=60'],
      ['/.well-known/skills.json', 'public, max-age=300'],
      ['/.well-known/agent-skills/index.json', 'public, max-age=300'],
      [`/bundles/${slug}/1.0.0.json`, 'public, max-age=31536000, immutable'],
      [`/.well-known/agent-skills/${slug}/1.0.0.tar.gz`, 'public, max-age=31536000, immutable'],
      [`/.well-known/agent-skills/${lone.slug}/1.0.0/SKILL.md`, 'public, max-age=31536000, immutable'],
    ];
    const types = { gz: 'application/gzip', md: 'text/markdown; charset=utf-8', json: 'application/json' };
    for (const [path, cacheControl] of cases) {
      const res = await stack.request(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('cache-control'), path).toBe(cacheControl);
      expect(res.headers.get('content-type'), path).toBe(types[path.endsWith('.gz') ? 'gz' : path.endsWith('.md') ? 'md' : 'json']);
      const etag = res.headers.get('etag')!;
      expect(etag).toMatch(/^"[^"]+"$/);
      const again = await stack.request(path, { headers: { 'if-none-match': etag } });
      expect(again.status, path).toBe(304);
      expect(await again.text()).toBe('');
      const head = await stack.request(path, { method: 'HEAD' });
      for (const answer of [res, again, head]) expectDataSecurityHeaders(answer, path);
    }
  });

  it('lets any origin read the static files, and answers HEAD with the headers and no body', async () => {
    const { slug } = await publish(stack, key, twoFiles());
    const lone = await publish(stack, key);
    await stack.idle();
    const paths = [
      `/api/registry/${slug}`,
      `/api/registry/${slug}/versions`,
      '/.well-known/skills.json',
      '/.well-known/agent-skills/index.json',
      `/bundles/${slug}/1.0.0.json`,
      `/.well-known/agent-skills/${slug}/1.0.0.tar.gz`,
      `/.well-known/agent-skills/${lone.slug}/1.0.0/SKILL.md`,
    ];
    for (const path of paths) {
      const get = await stack.request(path);
      expect(get.headers.get('access-control-allow-origin'), path).toBe('*');
      const head = await stack.request(path, { method: 'HEAD' });
      expect(head.status, path).toBe(200);
      expect(head.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(head.headers.get('etag'), path).toBe(get.headers.get('etag'));
      expect(await head.text(), path).toBe('');
    }
    // The API's own answers are not opened to other origins.
    expect((await stack.request('/api/health')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('compresses with brotli or gzip when asked, to the same bytes', async () => {
    const plain = Buffer.from(await (await stack.request('/.well-known/skills.json')).arrayBuffer());
    const br = await stack.request('/.well-known/skills.json', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toBe('Accept-Encoding');
    expect(brotliDecompressSync(Buffer.from(await br.arrayBuffer())).equals(plain)).toBe(true);
    const gz = await stack.request('/.well-known/skills.json', { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).equals(plain)).toBe(true);
  });

  it("serves the catalog's stored brotli and gzip copies, the very bytes the rebuild stored", async () => {
    const plain = Buffer.from(await (await stack.request('/.well-known/skills.json')).arrayBuffer());
    for (const [accept, encoding, suffix] of [
      ['br', 'br', 'br'],
      ['gzip', 'gzip', 'gz'],
    ] as const) {
      const res = await stack.request('/.well-known/skills.json', { headers: { 'accept-encoding': accept } });
      expect(res.headers.get('content-encoding')).toBe(encoding);
      const body = Buffer.from(await res.arrayBuffer());
      const stored = await stack.deps.staticStore.get(`.well-known/skills.json.${suffix}`);
      expect(body.equals(Buffer.from(stored!))).toBe(true);
      expect((encoding === 'br' ? brotliDecompressSync(body) : gunzipSync(body)).equals(plain)).toBe(true);
    }
  });

  it('serves the catalog in pages: the index names each page in slug order with the ETag it is served with, and they read as the catalog', async () => {
    const catalog = (await get(stack, '/.well-known/skills.json')).body;
    const index = (await get(stack, '/catalog/index.json')).body;
    expect(index).toMatchObject({ schemaVersion: 1, count: catalog.count, pageSize: 500 });
    const skills: unknown[] = [];
    for (const ref of index.pages) {
      const res = await stack.request(ref.path);
      expect(res.status, ref.path).toBe(200);
      expect(res.headers.get('etag')).toBe(ref.etag);
      expect(res.headers.get('cache-control')).toBe('public, max-age=300');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const page = await res.json();
      expect(page).toMatchObject({ schemaVersion: 1, page: ref.page, count: ref.count });
      expect(page.skills[0].slug).toBe(ref.first);
      skills.push(...page.skills);
    }
    expect(skills).toEqual(catalog.skills);
    for (const path of ['/catalog/page-99999.json', '/catalog/page-01.json', '/catalog/other.json']) expect((await stack.request(path)).status, path).toBe(404);
  });

  it('answers an unknown slug or file with a 404 JSON error', async () => {
    for (const path of ['/api/registry/no-such-skill', '/api/registry/no-such-skill/versions', '/bundles/no-such-skill/1.0.0.json', '/api/registry/Bad_Slug']) {
      const res = await stack.request(path);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    }
  });

  it('keeps ETags stable when nothing changed', async () => {
    const { slug } = await publish(stack, key);
    await stack.idle();
    const first = (await stack.request(`/api/registry/${slug}`)).headers.get('etag');
    stack.deps.changed([(await get(stack, `/api/registry/${slug}`)).body.id]);
    await stack.idle();
    expect((await stack.request(`/api/registry/${slug}`)).headers.get('etag')).toBe(first);
  });
});

describe('repair', () => {
  it('retries a failed rebuild until the files appear', async () => {
    const flaky = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
    const k = await (await Client.signIn(flaky, 'carol')).createKey();
    const store = flaky.deps.staticStore;
    const realPut = store.put.bind(store);
    let failures = 3;
    store.put = async (...args) => {
      if (failures-- > 0) throw new Error('injected S3 outage');
      return realPut(...args);
    };
    const { slug } = await publish(flaky, k);
    await flaky.idle();
    expect(failures).toBeLessThan(0);
    expect((await flaky.request(`/api/registry/${slug}`)).status).toBe(200);
  });

  it('regenerates every file, byte for byte, with the full rebuild', async () => {
    const own = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
    const k = await (await Client.signIn(own, 'dave')).createKey();
    const a = await publish(own, k);
    await addVersion(own, k, a, '1.1.0');
    await publish(own, k, { paid: true });
    await own.idle();
    const before = await staticTree(own);
    for (const objectKey of before.keys()) await own.deps.s3.send(new DeleteObjectCommand({ Bucket: own.config.staticBucket, Key: objectKey }));
    const report = await own.runtime.rebuildAll();
    expect(report.skills).toBe(2);
    const after = await staticTree(own);
    // Artifacts of versions that are no longer current stay where they were; nothing refers to them.
    const referenced = [...before.keys()].filter((k) => k !== `.well-known/agent-skills/${a.slug}/1.0.0/SKILL.md`);
    expect([...after.keys()].sort()).toEqual(referenced.sort());
    expect(report.written).toBe(after.size); // every one of them, counted once
    for (const objectKey of referenced) {
      const body = before.get(objectKey)!;
      if (objectKey.startsWith('.well-known/skills.json') || objectKey === 'catalog/index.json') continue; // generatedAt moves
      expect(after.get(objectKey)!.equals(body), objectKey).toBe(true);
    }
    const again = await own.runtime.rebuildAll();
    expect(again.written).toBe(2); // only the discovery index and its v0.1 copy: everything else is unchanged, the catalog's pages and index too
  });
});

/** A static file is data: nothing in it may load, run or be framed, whatever answered (200, 304, HEAD). */
function expectDataSecurityHeaders(res: Response, path: string): void {
  expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
  expect(res.headers.get('x-frame-options'), path).toBe('DENY');
  expect(res.headers.get('referrer-policy'), path).toBe('strict-origin-when-cross-origin');
  expect(res.headers.get('content-security-policy'), path).toBe("default-src 'none'; frame-ancestors 'none'; sandbox");
}
