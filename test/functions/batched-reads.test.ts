import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Db, getItems } from '#functions/store/db';
import { type AwsCallRecorder, recordAwsCalls } from '../support/aws-calls.ts';
import { createTestStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
let db: Db;
let recorder: AwsCallRecorder;

const key = (n: number) => ({ pk: `ITEM#${n}`, sk: 'META' });

beforeAll(async () => {
  stack = await createTestStack();
  db = stack.deps.db;
  for (let n = 0; n < 150; n++) await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...key(n), n } }));
  recorder = recordAwsCalls(stack.deps);
});

/** Counts the BatchGetItem requests sent from now on. */
const reads = () => {
  recorder.take();
  return () => recorder.take().filter((r) => r.call.action === 'dynamodb:BatchGetItem').length;
};

describe('getItems: reads asked for together share one BatchGetItem', () => {
  it('answers each caller with its own items only, from one request', async () => {
    const count = reads();
    const [a, b, c] = await Promise.all([getItems(db, [key(1), key(2)]), getItems(db, [key(3), { pk: 'ITEM#none', sk: 'META' }]), getItems(db, [key(2)])]);
    expect(a.map((i) => i.n).sort()).toEqual([1, 2]);
    expect(b.map((i) => i.n)).toEqual([3]);
    expect(c.map((i) => i.n)).toEqual([2]);
    expect(count()).toBe(1);
  });

  it('asks for a key two callers want once (BatchGetItem refuses duplicates)', async () => {
    const count = reads();
    const [a, b] = await Promise.all([getItems(db, [key(5), key(5)]), getItems(db, [key(5)])]);
    expect(a.map((i) => i.n)).toEqual([5, 5]);
    expect(b.map((i) => i.n)).toEqual([5]);
    expect(count()).toBe(1);
  });

  it('starts another request beyond the 100 keys one may carry', async () => {
    const count = reads();
    const parts = await Promise.all(
      Array.from({ length: 15 }, (_, p) =>
        getItems(
          db,
          Array.from({ length: 10 }, (_, i) => key(p * 10 + i)),
        ),
      ),
    );
    expect(
      parts
        .flat()
        .map((i) => i.n)
        .sort((x, y) => Number(x) - Number(y)),
    ).toEqual(Array.from({ length: 150 }, (_, n) => n));
    expect(count()).toBe(2);
  });

  it('reads asked for in a later turn of the event loop go out on their own', async () => {
    const count = reads();
    const first = getItems(db, [key(7)]);
    await new Promise((resolve) => setImmediate(resolve));
    const second = getItems(db, [key(8)]);
    expect((await first).map((i) => i.n)).toEqual([7]);
    expect((await second).map((i) => i.n)).toEqual([8]);
    expect(count()).toBe(2);
  });

  it('fails every caller of a request that fails, and the next read works again', async () => {
    const bad = { ...db, table: 'no-such-table' };
    const results = await Promise.allSettled([getItems(bad, [key(1)]), getItems(bad, [key(2)])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((await getItems(db, [key(1)])).map((i) => i.n)).toEqual([1]);
  });

  it('answers no keys with no items and no request', async () => {
    const count = reads();
    expect(await getItems(db, [])).toEqual([]);
    expect(count()).toBe(0);
  });
});
