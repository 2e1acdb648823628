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

describe('getItems: consistent batched reads', () => {
  it('answers with the items that exist, in one request', async () => {
    const count = reads();
    const items = await getItems(db, [key(1), key(2), { pk: 'ITEM#none', sk: 'META' }]);
    expect(items.map((i) => i.n).sort()).toEqual([1, 2]);
    expect(count()).toBe(1);
  });

  it('asks for a key given twice once (BatchGetItem refuses duplicates)', async () => {
    const count = reads();
    expect((await getItems(db, [key(5), key(5)])).map((i) => i.n)).toEqual([5]);
    expect(count()).toBe(1);
  });

  it('sends another request beyond the 100 keys one may carry', async () => {
    const count = reads();
    const items = await getItems(
      db,
      Array.from({ length: 150 }, (_, n) => key(n)),
    );
    expect(items.map((i) => Number(i.n)).sort((x, y) => x - y)).toEqual(Array.from({ length: 150 }, (_, n) => n));
    expect(count()).toBe(2);
  });

  it('fails when the request fails, and the next read works again', async () => {
    const bad = { ...db, table: 'no-such-table' };
    await expect(getItems(bad, [key(1)])).rejects.toThrow();
    expect((await getItems(db, [key(1)])).map((i) => i.n)).toEqual([1]);
  });

  it('answers no keys with no items and no request', async () => {
    const count = reads();
    expect(await getItems(db, [])).toEqual([]);
    expect(count()).toBe(0);
  });
});
