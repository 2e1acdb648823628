import type { Worker } from 'node:worker_threads';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackgroundThread } from '#scripts/local/background/thread';
import { analytics, commandsDuring, deliver, publish } from '../support/delivery.ts';
import { Client, createTestStack, json, skillFile, type TestStack, withKey } from '../support/stack.ts';

/**
 * The runtime as `npm start` runs it: rebuilds and install-count writes in the background
 * thread, with its own SDK clients, against the same embedded DynamoDB and S3.
 */

let stack: TestStack;
let alice: Client;
let aliceKey: string;
const failures: Error[] = [];

beforeAll(async () => {
  stack = await createTestStack(
    {},
    { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' },
    { background: 'thread', logLevel: 'silent', onBackgroundFailure: (e) => failures.push(e) },
  );
  alice = await Client.signIn(stack, 'alice');
  aliceKey = await alice.createKey();
});

afterAll(async () => {
  await stack.runtime.close();
});

const registry = async (slug: string) => json<{ currentVersion: string; versions: { version: string }[] }>(await stack.request(`/api/registry/${slug}`));

describe('the background thread', () => {
  it('rebuilds after a publish, and the local CDN serves what the thread wrote', async () => {
    const skill = await publish(stack, aliceKey);
    await stack.idle();
    // The CDN now holds the first registry document in memory: only the thread's announcement
    // of its next write can replace it.
    expect((await registry(skill.slug)).currentVersion).toBe('1.0.0');
    const res = await withKey(stack, aliceKey, `/api/skills/${skill.id}/versions`, {
      body: { version: '1.1.0', changelog: 'More', files: [skillFile(skill.slug, '# v1.1\n')] },
    });
    expect(res.status).toBe(201);
    await stack.idle();
    const doc = await registry(skill.slug);
    expect(doc.currentVersion).toBe('1.1.0');
    expect(doc.versions.map((v) => v.version)).toEqual(['1.1.0', '1.0.0']);
    const catalog = await json<{ skills: { slug: string; currentVersion: string }[] }>(await stack.request('/.well-known/skills.json'));
    expect(catalog.skills.find((s) => s.slug === skill.slug)?.currentVersion).toBe('1.1.0');
    expect((await stack.request(`/bundles/${skill.slug}/1.1.0.json`)).status).toBe(200);
  });

  it('counts every delivery exactly once, written by the thread, and analytics waits for them', async () => {
    const skill = await publish(stack, aliceKey);
    await stack.idle();
    const sources = Array.from({ length: 40 }, (_, i) => ['cli', 'web', 'api'][i % 3]!);
    const sent = await commandsDuring(stack, async () => {
      const statuses = await Promise.all(sources.map(async (source) => (await deliver(stack, skill.id, { source })).status));
      expect(statuses).toEqual(Array(40).fill(200));
      expect(await analytics(alice, skill.id)).toMatchObject({ total: 40, bySource: { cli: 14, web: 13, api: 13 } });
    });
    // This thread read the counts; it wrote none of them.
    expect(sent.filter((c) => c.name === 'UpdateCommand')).toEqual([]);
  });

  it('hands the thread the content a publish stored, so its rebuild does not read it back', async () => {
    const other = await createTestStack({}, {}, { background: 'thread', logLevel: 'silent' });
    try {
      // The thread reads content from the configured bucket; this thread now stores it in
      // another one, so the bundle can only be built from the bytes the thread was handed.
      const elsewhere = `${other.config.contentBucket}-elsewhere`;
      await other.deps.s3.send(new CreateBucketCommand({ Bucket: elsewhere }));
      other.deps.blobs.bucket = elsewhere;
      const key = await (await Client.signIn(other, 'handed')).createKey();
      const skill = await publish(other, key, { slug: 'handed-over', files: [skillFile('handed-over', '# Handed over\n')] });
      // A rebuild that read the content back would fail and retry forever: its failure shows in
      // the health answer long before it would settle (no clock decides which comes first).
      let done = false;
      const failed = async (): Promise<string> => {
        while (!done) {
          const health = await json<{ rebuild?: { failing?: number } }>(await other.request('/api/health'));
          if ((health.rebuild?.failing ?? 0) > 0) return 'failed to read the content back';
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        return 'rebuilt';
      };
      const settled = await Promise.race([other.idle().then(() => 'rebuilt'), failed()]);
      done = true;
      expect(settled).toBe('rebuilt');
      const bundle = await json<{ files: { content: string }[] }>(await other.request(`/bundles/${skill.slug}/1.0.0.json`));
      expect(bundle.files[0]!.content).toContain('# Handed over');
    } finally {
      await other.runtime.close();
    }
  });

  it('refuses to wait once closed, instead of hanging', async () => {
    const other = await createTestStack({}, {}, { background: 'thread', logLevel: 'silent' });
    await other.idle();
    await other.runtime.close();
    await expect(other.idle()).rejects.toThrow('closed');
    await other.runtime.close(); // twice is harmless
  });

  it('reports its death, after which waiting on it fails instead of hanging', async () => {
    const thread = stack.deps.downloads as BackgroundThread;
    await (thread as unknown as { worker: Worker }).worker.terminate();
    expect(failures.map((e) => e.message)).toEqual(['background thread exited with code 1']);
    await expect(stack.idle()).rejects.toThrow('background thread exited');
  });
});
