import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import { type Db, writeIf } from './db.ts';

/**
 * A lease lock in the table, for read-modify-write of shared static files (the catalog) by
 * rebuilds that may run side by side on AWS. A holder that dies loses the lease when it expires.
 */

export const lockKey = (name: string) => ({ pk: `LOCK#${name}`, sk: 'LOCK' });

const LEASE_MS = 30_000;
const WAIT_MS = 60_000;

export async function withLock<T>(db: Db, name: string, work: () => Promise<T>): Promise<T> {
  const owner = randomBytes(12).toString('base64url');
  const deadline = Date.now() + WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    const now = Date.now();
    const taken = await writeIf(
      db,
      new PutCommand({
        TableName: db.table,
        Item: { ...lockKey(name), owner, leaseUntil: now + LEASE_MS, expiresAt: Math.ceil((now + LEASE_MS) / 1000) + 60 },
        ConditionExpression: 'attribute_not_exists(pk) OR leaseUntil < :now',
        ExpressionAttributeValues: { ':now': now },
      }),
    );
    if (taken) break;
    if (Date.now() > deadline) throw new Error(`lock ${name}: still held after ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(200, 5 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random())));
  }
  try {
    return await work();
  } finally {
    // False when our lease expired and someone else holds it now: theirs to release.
    await writeIf(
      db,
      new DeleteCommand({ TableName: db.table, Key: lockKey(name), ConditionExpression: '#o = :owner', ExpressionAttributeNames: { '#o': 'owner' }, ExpressionAttributeValues: { ':owner': owner } }),
    );
  }
}
