import { describe, expect, it } from 'vitest';
import { mapLimit } from '../../core/map-limit.ts';
import { createTestStack } from '../support/stack.ts';

describe('the embedded S3', () => {
  it('lists more than 1,000 keys across pages, each once and in key order', async () => {
    const stack = await createTestStack();
    // The static tree's shape: `registry/<slug>.json` beside the folder `registry/<slug>/`.
    const keys = Array.from({ length: 550 }, (_, i) => [`registry/s${i}.json`, `registry/s${i}/versions.json`]).flat();
    await mapLimit(keys, 16, (key) => stack.deps.staticStore.put(key, key));
    const listed = [...(await stack.deps.staticStore.list('')).keys()];
    expect(listed).toEqual([...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
  });
});
