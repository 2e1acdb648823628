import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { analytics, authorStack, commandsDuring, deliver, issueToken, publish } from '../support/delivery.ts';
import { Client, json, type TestStack, withKey } from '../support/stack.ts';

let stack: TestStack;
let alice: Client;
let bob: Client;
let aliceKey: string;

beforeAll(async () => {
  ({ stack, alice, aliceKey } = await authorStack());
  bob = await Client.signIn(stack, 'bob');
});

describe('counting deliveries', () => {
  it("counts each delivery once in today's bucket under its source", async () => {
    const skill = await publish(stack, aliceKey);
    for (const source of ['cli', 'cli', 'web']) expect((await deliver(stack, skill.id, { source })).status).toBe(200);
    expect((await deliver(stack, skill.id)).status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const result = await analytics(alice, skill.id);
    expect(result).toMatchObject({ total: 4, last7d: 4, last30d: 4, bySource: { cli: 2, web: 1, api: 1 } });
    expect(result.daily).toHaveLength(30);
    // One client (the tests' requests have no address and one user agent): one distinct install.
    expect(result.daily.at(-1)).toEqual({ date: today, cli: 2, web: 1, api: 1, distinct: 1 });
    expect(result.distinct).toEqual({ total: 1, last7d: 1, last30d: 1 });
    expect(result.byClient).toEqual({ skillpress: 0, skills: 0, clawhub: 0, other: 4 });
    expect(result.daily.slice(0, -1).every((d) => d.cli + d.web + d.api === 0)).toBe(true);
  });

  it('counts nothing for failed deliveries: unknown version, bad source, paid without access, bad token', async () => {
    const free = await publish(stack, aliceKey);
    const paid = await publish(stack, aliceKey, { paid: true });
    const once = await issueToken(alice, paid.id, { maxUses: 1 });
    expect((await deliver(stack, paid.id, { token: once.token })).status).toBe(200);
    const failures = [
      await deliver(stack, free.id, { version: '3.0.0' }),
      await deliver(stack, free.id, { source: 'browser' }),
      await deliver(stack, paid.id),
      await deliver(stack, paid.id, {}, bob),
      await deliver(stack, paid.id, { token: 'dt_wrong' }),
      await deliver(stack, paid.id, { token: once.token }),
    ];
    expect(failures.map((r) => r.status)).toEqual([404, 400, 402, 402, 401, 401]);
    expect((await analytics(alice, free.id)).total).toBe(0);
    expect(await analytics(alice, paid.id)).toMatchObject({ total: 1, last7d: 1, bySource: { cli: 0, web: 0, api: 1 } });
  });

  it('does not count a HEAD request, which delivers no content', async () => {
    const free = await publish(stack, aliceKey);
    const paid = await publish(stack, aliceKey, { paid: true });
    const once = await issueToken(alice, paid.id, { maxUses: 1 });
    expect((await stack.request(`/api/deliver/${free.id}?source=cli`, { method: 'HEAD' })).status).toBe(200);
    expect((await stack.request(`/api/deliver/${paid.id}`, { method: 'HEAD' })).status).toBe(402);
    expect((await stack.request(`/api/deliver/${paid.id}?token=${once.token}`, { method: 'HEAD' })).status).toBe(200);
    expect((await analytics(alice, free.id)).total).toBe(0);
    // The HEAD spent nothing: the single use is still there for the real download.
    expect((await deliver(stack, paid.id, { token: once.token })).status).toBe(200);
    expect((await analytics(alice, paid.id)).total).toBe(1);
  });

  it('counts 500 concurrent deliveries exactly, split by source', async () => {
    const skill = await publish(stack, aliceKey);
    const before = await analytics(alice, skill.id);
    const sources = ['cli', 'web', 'api'] as const;
    const results = await Promise.all(Array.from({ length: 500 }, (_, i) => deliver(stack, skill.id, { source: sources[i % 3]! })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const after = await analytics(alice, skill.id);
    expect(after.total - before.total).toBe(500);
    expect(after.bySource).toEqual({ cli: 167, web: 167, api: 166 });
    expect(after.last7d).toBe(500);
    expect(after.daily.at(-1)).toMatchObject({ cli: 167, web: 167, api: 166 });
  }, 60_000);
});

describe('GET /api/analytics/<skillId> over time', () => {
  it('moves deliveries out of last7d and last30d as UTC days pass, and keeps them in total', async () => {
    // A stack of its own: its clock moves.
    const { stack: timed, aliceKey: key } = await authorStack();
    const skill = await publish(timed, key);
    const deliverAt = async (at: string, source: string, times = 1) => {
      timed.setNow(at);
      for (let i = 0; i < times; i++) expect((await deliver(timed, skill.id, { source })).status).toBe(200);
    };
    await deliverAt('2026-03-01T12:00:00Z', 'cli', 1); // day 0
    await deliverAt('2026-03-03T23:59:59.999Z', 'web', 2); // day 2, the last instant of it
    await deliverAt('2026-03-04T00:00:00.000Z', 'api', 4); // day 3, its first instant
    await deliverAt('2026-03-09T08:00:00Z', 'cli', 8); // day 8

    const at = async (now: string) => {
      timed.setNow(now);
      return analytics(await Client.signIn(timed, 'alice'), skill.id);
    };
    // On 03-09 the last 7 days are 03-03..03-09: the web, api and cli (day 8) buckets.
    expect(await at('2026-03-09T23:59:59Z')).toMatchObject({ total: 15, last7d: 14, last30d: 15, bySource: { cli: 9, web: 2, api: 4 } });
    // One UTC day later 03-03 drops out of last7d.
    expect(await at('2026-03-10T00:00:00Z')).toMatchObject({ total: 15, last7d: 12, last30d: 15 });
    // 03-30 is the last day whose 30-day window still holds 03-01.
    const late = await at('2026-03-30T10:00:00Z');
    expect(late).toMatchObject({ total: 15, last7d: 0, last30d: 15 });
    expect(late.daily[0]).toEqual({ date: '2026-03-01', cli: 1, web: 0, api: 0, distinct: 1 });
    // One client on four days: four distinct installs (one per client per day).
    expect(late.distinct).toEqual({ total: 4, last7d: 0, last30d: 4 });
    expect(await at('2026-03-31T00:00:00Z')).toMatchObject({ total: 15, last7d: 0, last30d: 14 });
    const gone = await at('2026-06-01T00:00:00Z');
    expect(gone).toMatchObject({ total: 15, last7d: 0, last30d: 0, bySource: { cli: 9, web: 2, api: 4 } });
    expect(gone.daily.map((d) => d.date)).toEqual(Array.from({ length: 30 }, (_, i) => new Date(Date.UTC(2026, 4, 3 + i)).toISOString().slice(0, 10)));
  });

  it('reads with one bounded Query of the days and the total, never a Scan', async () => {
    const skill = await publish(stack, aliceKey);
    await deliver(stack, skill.id);
    await stack.idle(); // the count is written behind the response; only the read is measured
    const sent = await commandsDuring(stack, () => analytics(alice, skill.id));
    const counters = sent.filter((c) => JSON.stringify(c.input).includes(`DL#${skill.id}`));
    expect(counters.map((c) => c.name).sort()).toEqual(['QueryCommand']);
    expect(sent.map((c) => c.name)).not.toContain('ScanCommand');
    expect(JSON.stringify(counters.find((c) => c.name === 'QueryCommand')!.input)).toContain('BETWEEN');
  });
});

describe('installs by client and by distinct client', () => {
  it('names our CLI and ClawHub’s, and counts each client once a day however often it installs', async () => {
    const skill = await publish(stack, aliceKey);
    const cli = { 'user-agent': 'skillpress-cli/1.0.0 node/20.20.0' };
    for (let i = 0; i < 3; i++) expect((await stack.requestFrom('127.0.0.2', `/api/deliver/${skill.id}?source=cli`, { headers: cli })).status).toBe(200);
    expect((await stack.requestFrom('127.0.0.3', `/api/deliver/${skill.id}?source=cli`, { headers: cli })).status).toBe(200);
    expect((await stack.requestFrom('127.0.0.3', `/api/v1/download?slug=${skill.slug}`, { headers: { 'user-agent': 'node' } })).status).toBe(200);
    expect((await stack.requestFrom('127.0.0.4', `/api/deliver/${skill.id}?source=web`, { headers: { 'user-agent': 'Mozilla/5.0' } })).status).toBe(200);
    const result = await analytics(alice, skill.id);
    expect(result).toMatchObject({ total: 6, bySource: { cli: 5, web: 1, api: 0 }, byClient: { skillpress: 4, skills: 0, clawhub: 1, other: 1 } });
    // 127.0.0.2's CLI, 127.0.0.3's CLI and its ClawHub client (another user agent), 127.0.0.4's browser.
    expect(result.distinct).toEqual({ total: 4, last7d: 4, last30d: 4 });
  });

  it('lets one address add at most four clients a day, whatever user agents it sends', async () => {
    const skill = await publish(stack, aliceKey);
    for (let i = 0; i < 10; i++) {
      expect((await stack.requestFrom('127.0.0.5', `/api/deliver/${skill.id}`, { headers: { 'user-agent': `agent-${i}` } })).status).toBe(200);
    }
    expect((await analytics(alice, skill.id)).distinct.total).toBe(4);
  });

  it('counts an IPv6 subscriber’s /64 as one network', async () => {
    const skill = await publish(stack, aliceKey);
    for (let i = 1; i <= 6; i++) expect((await stack.requestFrom(`2001:db8:5:6::${i}`, `/api/deliver/${skill.id}`)).status).toBe(200);
    expect(await analytics(alice, skill.id)).toMatchObject({ total: 6, distinct: { total: 1 } });
  });

  it('never takes the address from a header the client sets', async () => {
    const skill = await publish(stack, aliceKey);
    for (let i = 0; i < 5; i++) {
      const headers = {
        'x-forwarded-for': `198.51.100.${i}`,
        'x-real-ip': `198.51.100.${i}`,
        'cloudfront-viewer-address': `198.51.100.${i}:443`,
        forwarded: `for=198.51.100.${i}`,
      };
      expect((await stack.requestFrom('127.0.0.6', `/api/deliver/${skill.id}`, { headers })).status).toBe(200);
    }
    expect((await analytics(alice, skill.id)).distinct.total).toBe(1);
  });

  it('keeps no address or user agent in the table', async () => {
    const skill = await publish(stack, aliceKey);
    expect((await stack.requestFrom('127.0.0.77', `/api/deliver/${skill.id}`, { headers: { 'user-agent': 'very-identifiable-agent/9' } })).status).toBe(200);
    await stack.idle();
    const { Items } = await stack.deps.db.doc.send(new ScanCommand({ TableName: stack.deps.db.table }));
    const stored = JSON.stringify(Items, (_, value) => (value instanceof Set ? [...value] : value));
    expect(stored).toContain('SEEN#');
    expect(stored).not.toContain('127.0.0.77');
    expect(stored).not.toContain('very-identifiable-agent');
  });
});

describe('who may read analytics', () => {
  it('answers 401 without a session and for an API key, even the author’s', async () => {
    const skill = await publish(stack, aliceKey);
    const anon = await stack.request(`/api/analytics/${skill.id}`);
    expect(anon.status).toBe(401);
    const byKey = await withKey(stack, aliceKey, `/api/analytics/${skill.id}`, { method: 'GET' });
    expect(byKey.status).toBe(401);
    expect((await json(byKey)).error.code).toBe('unauthenticated');
  });

  it('answers 403 to a signed-in user who is not the author, and 404 for an unknown skill', async () => {
    const skill = await publish(stack, aliceKey);
    const other = await bob.session(`/api/analytics/${skill.id}`);
    expect(other.status).toBe(403);
    expect((await json(other)).error.code).toBe('forbidden');
    for (const id of ['no-such-skill', 'x'.repeat(4000)]) {
      const missing = await alice.session(`/api/analytics/${id}`);
      expect(missing.status).toBe(404);
    }
  });
});
