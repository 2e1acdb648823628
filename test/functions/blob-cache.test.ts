import { PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '#core/bundle';
import { BlobCache } from '#functions/content/blob-cache';
import { blobKey, getBlob } from '#functions/content/blobs';
import { createTestStack } from '../support/stack.ts';

const bytes = (n: number, fill = 1) => new Uint8Array(n).fill(fill);

describe('BlobCache', () => {
  it('reads a blob once and answers later loads from memory', async () => {
    const cache = new BlobCache(100);
    let reads = 0;
    const read = async () => {
      reads += 1;
      return bytes(10);
    };
    await cache.load('a', read);
    expect(await cache.load('a', read)).toEqual(bytes(10));
    expect(reads).toBe(1);
  });

  it('shares one read between concurrent misses of the same blob', async () => {
    const cache = new BlobCache(100);
    let reads = 0;
    const read = () => new Promise<Uint8Array>((resolve) => setTimeout(() => resolve(bytes(5, ++reads)), 10));
    const results = await Promise.all(Array.from({ length: 8 }, () => cache.load('a', read)));
    expect(reads).toBe(1);
    expect(new Set(results).size).toBe(1);
  });

  it('stays within its byte bound by dropping the least recently used blob', async () => {
    const cache = new BlobCache(30);
    await cache.load('a', async () => bytes(10));
    await cache.load('b', async () => bytes(10));
    await cache.load('a', async () => bytes(99)); // a hit: 'a' is now the most recently used
    await cache.load('c', async () => bytes(15)); // over 30: 'b' goes
    expect(cache.bytes).toBe(25);
    let reread = '';
    const readAs = (name: string) => async () => {
      reread += name;
      return bytes(10);
    };
    await cache.load('a', readAs('a'));
    await cache.load('b', readAs('b'));
    expect(reread).toBe('b');
    expect(cache.bytes).toBeLessThanOrEqual(30);
  });

  it('does not keep a failed read, and skips blobs larger than the whole cache', async () => {
    const cache = new BlobCache(10);
    await expect(cache.load('a', () => Promise.reject(new Error('S3 down')))).rejects.toThrow('S3 down');
    expect(await cache.load('a', async () => bytes(4))).toEqual(bytes(4));
    await cache.load('big', async () => bytes(11));
    expect(cache.bytes).toBe(4);
  });
});

describe('getBlob', () => {
  it('refuses bytes that do not hash to the blob name, instead of delivering or caching them', async () => {
    const stack = await createTestStack();
    const sha = sha256Hex('the real content');
    await stack.deps.s3.send(new PutObjectCommand({ Bucket: stack.config.contentBucket, Key: blobKey(sha), Body: 'tampered content' }));
    await expect(getBlob(stack.deps.blobs, sha)).rejects.toThrow(/does not match its hash/);
    expect(stack.deps.blobs.cache!.bytes).toBe(0);
  });
});
