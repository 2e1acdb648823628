import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { Rebuilder } from '#functions/rebuild/rebuilder';
import { seedSkills } from '#scripts/seed-store';
import { rebuildInShards, shardsFromEnv } from '../../scripts/local/rebuild/shards.ts';
import { publish } from '../support/delivery.ts';
import { Client, createTestStack, skillFile, type TestStack } from '../support/stack.ts';

/**
 * The full rebuild fanned out in shards, each in a thread of its own as locally (on AWS, each in
 * a Lambda of its own): the same static tree as one shard, every file byte for byte, the shared
 * indexes written once from what the shards produced.
 */

async function staticTree(s: TestStack): Promise<Map<string, Buffer>> {
  const tree = new Map<string, Buffer>();
  let ContinuationToken: string | undefined;
  do {
    const page = await s.deps.s3.send(new ListObjectsV2Command({ Bucket: s.config.staticBucket, ContinuationToken }));
    for (const object of page.Contents ?? []) {
      const body = await s.deps.s3.send(new GetObjectCommand({ Bucket: s.config.staticBucket, Key: object.Key! }));
      tree.set(object.Key!, Buffer.from(await body.Body!.transformToByteArray()));
    }
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return tree;
}

/** Files that carry the time they were written. */
const timed = (key: string) => key.startsWith('.well-known/skills.json') || key === 'catalog/index.json' || key.startsWith('.well-known/skillpress/search');

describe('the full rebuild in shards', () => {
  it('writes the same files as one shard, byte for byte, each shard in a thread of its own', async () => {
    const stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000' });
    const key = await (await Client.signIn(stack, 'shard-author')).createKey();
    await seedSkills(stack.deps, { count: 60, authorLogin: 'seeder' });
    await publish(stack, key, { paid: true, price: { amount: 500, currency: 'USD' } });
    const slug = `shard-archive-${Date.now().toString(36)}`;
    await publish(stack, key, { slug, files: [skillFile(slug, '# Two\n'), { filename: 'notes.md', content: 'notes' }] });
    const one = await new Rebuilder(stack.deps).rebuildAll();
    expect(one.failed).toEqual([]);
    const before = await staticTree(stack);

    for (const objectKey of before.keys()) await stack.deps.s3.send(new DeleteObjectCommand({ Bucket: stack.config.staticBucket, Key: objectKey }));
    const three = await rebuildInShards(new Rebuilder(stack.deps), stack.deps.config, 3, 'silent');
    expect(three.failed).toEqual([]);
    expect(three.skills).toBe(one.skills);
    const after = await staticTree(stack);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [objectKey, body] of before) if (!timed(objectKey)) expect(after.get(objectKey)!.equals(body), objectKey).toBe(true);
    const catalog = (tree: Map<string, Buffer>) => JSON.parse(tree.get('.well-known/skills.json')!.toString('utf8')).skills;
    expect(catalog(after)).toEqual(catalog(before));
    expect(catalog(after).length).toBeGreaterThanOrEqual(61);
  }, 120_000);

  it('lists nothing but its own skills’ folders, and over a current bucket writes no skill’s file again', async () => {
    const stack = await createTestStack();
    await seedSkills(stack.deps, { count: 12, authorLogin: 'seeder', manyVersionsEvery: 5, manyVersions: 6 });
    expect((await new Rebuilder(stack.deps).rebuildAll()).failed).toEqual([]);
    const listed: string[] = [];
    const list = stack.deps.staticStore.list.bind(stack.deps.staticStore);
    stack.deps.staticStore.list = (prefix) => {
      listed.push(prefix);
      return list(prefix);
    };
    const written: string[] = [];
    const stop = stack.deps.staticStore.onWrite((key) => written.push(key));
    const output = await new Rebuilder(stack.deps).rebuildShard(0, 1);
    stop();
    expect(output.failed).toEqual([]);
    expect(output.rebuilt).toBe(12);
    // At a million skills the bucket holds millions of keys: listing it all was minutes per shard.
    for (const prefix of listed) expect(prefix).toMatch(/^bundles\/seeded-\d{6}\/$/);
    expect(written).toEqual([]);
  });

  it('takes its shard count from SKILLPRESS_REBUILD_SHARDS, 1 unless it is a whole number from 1 to 64', () => {
    expect(shardsFromEnv({})).toBe(1);
    expect(shardsFromEnv({ SKILLPRESS_REBUILD_SHARDS: '4' })).toBe(4);
    for (const bad of ['0', '-2', '2.5', 'many', '65']) expect(shardsFromEnv({ SKILLPRESS_REBUILD_SHARDS: bad }), bad).toBe(1);
  });
});
