import { beforeAll, describe, expect, it } from 'vitest';
import { formatCdnLogRecord } from '#core/cdn-log';
import { INSTALLS_KEY } from '#core/static-paths';
import { countCdnLog } from '#functions/services/install-log';
import { refreshInstallCounts } from '#functions/services/public-installs';
import { recordAwsCalls } from '../support/aws-calls.ts';
import { analytics, authorStack, publish } from '../support/delivery.ts';
import { Client, createTestStack, json, skillBody, type TestStack, withKey } from '../support/stack.ts';

/**
 * Installs from the CDN's log (docs/api.md §10.2), as the install-log Lambda counts a Kinesis
 * batch: exactly once per CDN request however often the stream delivers a record.
 */

let stack: TestStack;
let alice: Client;
let aliceKey: string;

beforeAll(async () => {
  ({ stack, alice, aliceKey } = await authorStack());
});

const line = (slug: string, requestId: string, address = '203.0.113.5', overrides: { status?: number; method?: string } = {}) =>
  formatCdnLogRecord({
    at: Date.now(),
    address,
    status: overrides.status ?? 200,
    method: overrides.method ?? 'GET',
    path: `/.well-known/agent-skills/${slug}/1.0.0/SKILL.md`,
    query: 'via=skill-index',
    userAgent: 'node',
    requestId,
    headers: { 'user-agent': 'node' },
  });

describe('installs from the CDN’s log', () => {
  it('counts each request once when the stream delivers its record again, as Kinesis may on a retry', async () => {
    const skill = await publish(stack, aliceKey);
    const batch = [line(skill.slug, 'req-1'), line(skill.slug, 'req-2', '203.0.113.6'), line(skill.slug, 'req-3', '203.0.113.6', { status: 304 })];
    expect(countCdnLog(stack.deps.downloads, batch)).toEqual({ counted: 2, unreadable: 0 });
    await stack.deps.downloads.flush();
    // The same batch again, and one of its records a third time, beside a new one.
    countCdnLog(stack.deps.downloads, [...batch, batch[0]!, line(skill.slug, 'req-4', '203.0.113.7')]);
    await stack.deps.downloads.flush();
    expect(await analytics(alice, skill.id)).toMatchObject({ total: 3, bySource: { cli: 3 }, byClient: { skills: 3 }, distinct: { total: 3 } });
  });

  it('skips lines it cannot read and slugs that name no skill, counting the rest', async () => {
    const skill = await publish(stack, aliceKey);
    expect(countCdnLog(stack.deps.downloads, ['not a log line', line('no-such-skill-here', 'req-5'), line(skill.slug, 'req-6')])).toEqual({
      counted: 2,
      unreadable: 1,
    });
    await stack.deps.downloads.flush();
    expect((await analytics(alice, skill.id)).total).toBe(1);
  });
});

describe('the public install counts on a schedule', () => {
  it('are rewritten by the background work without a site build or any other write', async () => {
    const timed = await createTestStack({}, { SKILLPRESS_INSTALLS_INTERVAL_SECONDS: '1' });
    const key = await (await Client.signIn(timed, 'carol')).createKey();
    const skill = await json(await withKey(timed, key, '/api/publish', { body: skillBody() }));
    expect((await timed.requestFrom('127.8.0.1', `/api/deliver/${skill.id}`)).status).toBe(200);
    await expect
      .poll(async () => ((await (await timed.request(`/${INSTALLS_KEY}`)).json()) as { skills?: Record<string, unknown> }).skills?.[skill.slug], {
        timeout: 15_000,
      })
      .toEqual({ total: 1, last7d: 1, last30d: 1 });
    await timed.runtime.close();
  });
});

describe('the 5-minute refresh of the public counts', () => {
  it('reads again only the skills installed since the last file, keeps the rest, and makes the file whole on a new UTC day', async () => {
    const refreshing = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '100' });
    const key = await (await Client.signIn(refreshing, 'dave')).createKey();
    const publishOne = async () => json(await withKey(refreshing, key, '/api/publish', { body: skillBody() }));
    const [quiet, busy] = [await publishOne(), await publishOne()];
    await refreshing.idle();
    const install = async (id: string, from: string) => expect((await refreshing.requestFrom(from, `/api/deliver/${id}`)).status).toBe(200);
    const file = async () => ((await (await refreshing.request(`/${INSTALLS_KEY}`)).json()) as { skills: Record<string, unknown> }).skills;
    refreshing.setNow('2030-03-01T10:00:00Z');
    await install(quiet.id, '127.8.1.1');
    await install(busy.id, '127.8.1.2');
    expect(await refreshInstallCounts(refreshing.deps)).toMatchObject({ read: 'all' }); // no file yet: a full pass
    refreshing.setNow('2030-03-01T10:12:00Z');
    await refreshInstallCounts(refreshing.deps);
    refreshing.setNow('2030-03-01T10:25:00Z');
    await install(busy.id, '127.8.1.3');
    const recorder = recordAwsCalls(refreshing.deps);
    recorder.take();
    expect(await refreshInstallCounts(refreshing.deps)).toMatchObject({ read: 1 });
    expect(recorder.take().some((r) => r.call.action === 'dynamodb:Scan')).toBe(false);
    expect(await file()).toMatchObject({ [quiet.slug]: { total: 1 }, [busy.slug]: { total: 2 } });
    // The next UTC day: every skill's last 7 and 30 days move, so the pass is whole again.
    refreshing.setNow('2030-03-02T00:01:00Z');
    expect(await refreshInstallCounts(refreshing.deps)).toMatchObject({ read: 'all' });
    await refreshing.runtime.close();
  });
});
