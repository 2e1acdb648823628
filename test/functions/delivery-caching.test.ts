import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { DeliveryCache } from '#functions/services/delivery-cache';
import { DownloadCounter } from '#functions/store/downloads';
import { installDayKey, installTotalKey } from '#functions/store/keys';
import { getSkill, recordPublished } from '#functions/store/skills';
import { authorStack, commandsDuring, deliver, installEvent, publish } from '../support/delivery.ts';
import { json, skillFile, type TestStack, withKey } from '../support/stack.ts';

let stack: TestStack;
let aliceKey: string;

beforeAll(async () => {
  ({ stack, aliceKey } = await authorStack());
});

async function counters(skillId: string, day: string) {
  const read = async (key: Record<string, string>) =>
    (await stack.deps.db.doc.send(new GetCommand({ TableName: stack.deps.db.table, Key: key, ConsistentRead: true }))).Item;
  return { day: await read(installDayKey(skillId, day)), total: await read(installTotalKey(skillId)) };
}

const today = () => new Date().toISOString().slice(0, 10);

describe('counting deliveries behind the response', () => {
  it('sums a burst of installs of one skill into one write per counter item', async () => {
    const skill = await publish(stack, aliceKey);
    await stack.idle();
    const sent = await commandsDuring(stack, async () => {
      const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => deliver(stack, skill.id, { source: ['cli', 'web', 'api'][i % 3]! })));
      expect(responses.map((r) => r.status)).toEqual(Array(30).fill(200));
      await stack.idle();
    });
    const writes = sent.filter((c) => c.name === 'UpdateCommand' && JSON.stringify(c.input).includes(`DL#${skill.id}`));
    expect(writes.length).toBeGreaterThanOrEqual(2);
    expect(writes.length).toBeLessThan(30); // two per install without aggregation: 60
    expect(await counters(skill.id, today())).toMatchObject({ day: { cli: 10, web: 10, api: 10 }, total: { cli: 10, web: 10, api: 10 } });
  });

  it('keeps counts whose write failed and writes them on the next flush, once', async () => {
    const skill = await publish(stack, aliceKey);
    const counter = new DownloadCounter(stack.deps.db, stack.deps.log, { lingerMs: 60_000, concurrency: 2 });
    const doc = stack.deps.db.doc;
    const original = doc.send.bind(doc);
    let failing = true;
    doc.send = ((...args: unknown[]) =>
      failing
        ? Promise.reject(Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' }))
        : (original as (...a: unknown[]) => unknown)(...args)) as typeof doc.send;
    try {
      for (let i = 0; i < 3; i++) counter.add(installEvent(skill.id, 'cli', new Date()));
      await expect(counter.flush()).rejects.toThrow('throttled');
      expect(counter.unwritten).toBe(3);
      counter.add(installEvent(skill.id, 'web', new Date()));
      failing = false;
      await counter.flush();
    } finally {
      doc.send = original;
    }
    expect(counter.unwritten).toBe(0);
    expect(await counters(skill.id, today())).toMatchObject({ day: { cli: 3, web: 1 }, total: { cli: 3, web: 1 } });
    await counter.flush(); // nothing left: writes nothing more
    expect((await counters(skill.id, today())).total).toMatchObject({ cli: 3, web: 1 });
  });

  it('writes on its own within the linger time, without a flush', async () => {
    const skill = await publish(stack, aliceKey);
    const counter = new DownloadCounter(stack.deps.db, stack.deps.log, { lingerMs: 10, concurrency: 2 });
    counter.add(installEvent(skill.id, 'api', new Date('2026-02-03T04:05:06Z')));
    await expect.poll(async () => (await counters(skill.id, '2026-02-03')).day?.api, { timeout: 10_000 }).toBe(1);
    expect(counter.unwritten).toBe(0);
  });

  it('lets a reader wait until every count added so far is written', async () => {
    const skill = await publish(stack, aliceKey);
    const counter = new DownloadCounter(stack.deps.db, stack.deps.log, { lingerMs: 30, concurrency: 2 });
    await counter.written(); // nothing added: at once
    for (let i = 0; i < 4; i++) counter.add(installEvent(skill.id, 'web', new Date('2026-05-06T07:08:09Z')));
    await counter.written();
    expect(counter.unwritten).toBe(0);
    expect(await counters(skill.id, '2026-05-06')).toMatchObject({ day: { web: 4 }, total: { web: 4 } });
  });
});

describe('what delivery keeps between requests', () => {
  it('answers repeated deliveries of a version without reading DynamoDB', async () => {
    const skill = await publish(stack, aliceKey);
    expect((await deliver(stack, skill.id)).status).toBe(200);
    await stack.idle();
    const sent = await commandsDuring(stack, async () => {
      for (let i = 0; i < 5; i++) expect((await deliver(stack, skill.id, { version: '1.0.0' })).status).toBe(200);
    });
    // Only the counts' writes (behind the responses) may show up.
    expect(sent.filter((c) => c.name !== 'UpdateCommand')).toEqual([]);
  });

  it('delivers a version published in this process at once, as the new default', async () => {
    const skill = await publish(stack, aliceKey);
    expect((await json(await deliver(stack, skill.id))).version).toBe('1.0.0');
    const res = await withKey(stack, aliceKey, `/api/skills/${skill.id}/versions`, {
      body: { version: '1.1.0', files: [skillFile(skill.slug, 'v1.1')] },
    });
    expect(res.status).toBe(201);
    expect(await json(await deliver(stack, skill.id))).toMatchObject({ version: '1.1.0', files: [skillFile(skill.slug, 'v1.1')] });
  });

  it("follows another process's publish once the skill's TTL has passed", async () => {
    const skill = await publish(stack, aliceKey);
    const clock = steppedClock();
    const cache = new DeliveryCache(200, 1_000_000, 50_000, clock.now);
    const read = () => cache.skill(skill.id, () => getSkill(stack.deps.db, skill.id));
    expect(await read()).toMatchObject({ currentVersion: '1.0.0' });
    // Another process moves the current version: this cache is not told.
    await recordPublished(stack.deps.db, skill.id, '2.0.0', new Date());
    clock.step(199);
    expect(await read()).toMatchObject({ currentVersion: '1.0.0' });
    clock.step(51);
    // Past its TTL: the held copy answers at once while the skill is read again behind it.
    expect(await read()).toMatchObject({ currentVersion: '1.0.0' });
    await vi.waitFor(async () => expect(await read()).toMatchObject({ currentVersion: '2.0.0' }));
  });

  it('reads a skill before answering once its copy is older than twice the TTL', async () => {
    const skill = await publish(stack, aliceKey);
    const clock = steppedClock();
    const cache = new DeliveryCache(100, 1_000_000, 50_000, clock.now);
    let reads = 0;
    const read = () =>
      cache.skill(skill.id, () => {
        reads++;
        return getSkill(stack.deps.db, skill.id);
      });
    expect(await read()).toMatchObject({ currentVersion: '1.0.0' });
    await recordPublished(stack.deps.db, skill.id, '2.0.0', new Date());
    clock.step(250);
    expect(await read()).toMatchObject({ currentVersion: '2.0.0' });
    // Within the TTL again: answered from the cache, however many ask.
    await Promise.all(Array.from({ length: 10 }, read));
    expect(reads).toBe(2);
  });

  it('does not remember an unknown skill or version: one published later is delivered', async () => {
    const skill = await publish(stack, aliceKey);
    expect((await deliver(stack, skill.id, { version: '3.0.0' })).status).toBe(404);
    const res = await withKey(stack, aliceKey, `/api/skills/${skill.id}/versions`, {
      body: { version: '3.0.0', files: [skillFile(skill.slug, 'three')] },
    });
    expect(res.status).toBe(201);
    expect(await json(await deliver(stack, skill.id, { version: '3.0.0' }))).toMatchObject({ version: '3.0.0' });
  });
});

/** A clock that moves only when the test steps it, so TTLs do not depend on the machine's load. */
function steppedClock() {
  let t = 0;
  return {
    now: () => t,
    step(ms: number) {
      t += ms;
    },
  };
}
