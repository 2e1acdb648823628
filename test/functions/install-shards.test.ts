import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { publishInstallCounts } from '#functions/services/public-installs';
import { DownloadCounter, SHARDS } from '#functions/store/downloads';
import { installPartition, installTotalKey } from '#functions/store/keys';
import { INSTALLS_KEY } from '#core/static-paths';
import { analytics, authorStack, installEvent, publish } from '../support/delivery.ts';
import type { Client, TestStack } from '../support/stack.ts';

/**
 * A hot skill's counters spread over shards (docs/deploy.md, "Hot partition"), and every reader
 * adds them up: the counts stay exact.
 */

let stack: TestStack;
let alice: Client;
let aliceKey: string;

beforeAll(async () => {
  ({ stack, alice, aliceKey } = await authorStack());
});

async function shardsOf(skillId: string): Promise<number[]> {
  const used: number[] = [];
  for (let shard = 0; shard < SHARDS; shard++) {
    const { Count } = await stack.deps.db.doc.send(
      new QueryCommand({
        TableName: stack.deps.db.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': installPartition(skillId, shard) },
      }),
    );
    if (Count) used.push(shard);
  }
  return used;
}

describe('sharded install counters', () => {
  it('spreads a hot skill’s writes over its shards, and analytics and the public counts add them up exactly', async () => {
    const skill = await publish(stack, aliceKey);
    // Another process found the skill hot: the base TOTAL says so, and this one learns it on its next write.
    await stack.deps.db.doc.send(
      new UpdateCommand({
        TableName: stack.deps.db.table,
        Key: installTotalKey(skill.id),
        UpdateExpression: 'SET shards = :n',
        ExpressionAttributeValues: { ':n': SHARDS },
      }),
    );
    const deliverFrom = (n: number) => stack.requestFrom(`127.4.${Math.floor(n / 200)}.${(n % 200) + 1}`, `/api/deliver/${skill.id}?source=cli`);
    let sent = 0;
    for (let round = 0; round < 20; round++) {
      const statuses = await Promise.all(Array.from({ length: 30 }, () => deliverFrom(sent++)));
      expect(statuses.every((r) => r.status === 200)).toBe(true);
      await stack.idle(); // each round of counts is its own set of writes, spread at random
    }
    expect((await shardsOf(skill.id)).length).toBeGreaterThan(3);
    expect(await analytics(alice, skill.id)).toMatchObject({ total: 600, last7d: 600, bySource: { cli: 600 }, distinct: { total: 600, last7d: 600 } });
    await publishInstallCounts(stack.deps);
    const doc = await (await stack.request(`/${INSTALLS_KEY}`)).json();
    expect(doc.skills[skill.slug]).toEqual({ total: 600, last7d: 600, last30d: 600 });
  }, 120_000);

  it('shards a skill once its installs, all processes together, pass the rate', async () => {
    const skill = await publish(stack, aliceKey);
    const counter = new DownloadCounter(stack.deps.db, stack.deps.log, { lingerMs: 20, concurrency: 4, hotInstallsPerSecond: 10 });
    const started = Date.now();
    let n = 0;
    while (Date.now() - started < 3000) {
      for (let i = 0; i < 10; i++) counter.add(installEvent(skill.id, 'api', new Date(), `127.5.0.${(n++ % 250) + 1}`));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await counter.flush();
    const total = (
      await stack.deps.db.doc.send(
        new QueryCommand({
          TableName: stack.deps.db.table,
          KeyConditionExpression: 'pk = :pk AND sk = :total',
          ExpressionAttributeValues: { ':pk': installPartition(skill.id), ':total': 'TOTAL' },
          ConsistentRead: true,
        }),
      )
    ).Items![0]!;
    expect(total.shards).toBe(SHARDS);
    expect((await analytics(alice, skill.id)).total).toBe(n);
  }, 60_000);
});
