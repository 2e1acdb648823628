import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { withLock } from '#functions/store/locks';
import { lockKey } from '#functions/store/keys';
import { createTestStack } from '../support/stack.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the lease lock of the shared indexes', () => {
  it('renews its lease while the work runs, so a holder busy for longer than the lease keeps others out', async () => {
    const { deps } = await createTestStack();
    const events: string[] = [];
    const first = withLock(
      deps.db,
      'long',
      async () => {
        events.push('first in');
        await sleep(3000); // three leases long
        events.push('first out');
      },
      // Renewed every third of a lease: a lease long enough that a loaded machine's slow round
      // trip to the table does not let it lapse between renewals.
      { leaseMs: 1000 },
    );
    await sleep(300);
    const second = withLock(deps.db, 'long', async () => void events.push('second in'), { leaseMs: 1000 });
    await Promise.all([first, second]);
    expect(events).toEqual(['first in', 'first out', 'second in']);
  });

  it('lets the next holder in once the lease of a holder that died has run out', async () => {
    const { deps } = await createTestStack();
    // A holder that took the lock and died: nobody renews or releases it.
    const leaseUntil = Date.now() + 400;
    await deps.db.doc.send(new PutCommand({ TableName: deps.db.table, Item: { ...lockKey('orphan'), owner: 'dead', leaseUntil } }));
    let gotIn = 0;
    await withLock(deps.db, 'orphan', async () => {
      gotIn = Date.now();
    });
    expect(gotIn).toBeGreaterThan(leaseUntil);
  });

  it('ignores a memo that does not read as one, and its release replaces it', async () => {
    const { deps } = await createTestStack();
    await deps.db.doc.send(new PutCommand({ TableName: deps.db.table, Item: { ...lockKey('memo'), owner: 'gone', leaseUntil: 0, memo: 'not a map' } }));
    const seen: (Record<string, string> | undefined)[] = [];
    await withLock(deps.db, 'memo', async (lease) => {
      seen.push(lease.previous);
      lease.leave({ 'catalog.json': 'etag-1' });
    });
    await withLock(deps.db, 'memo', async (lease) => void seen.push(lease.previous));
    expect(seen).toEqual([undefined, { 'catalog.json': 'etag-1' }]);
  });
});
