import { beforeAll, describe, expect, it } from 'vitest';
import { installsDocumentSchema } from '#core/schemas';
import { INSTALLS_KEY } from '#core/static-paths';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { publishInstallCounts } from '#functions/services/public-installs';
import { installTotalKey } from '#functions/store/keys';
import { Client, createTestStack, json, skillBody, type TestStack, withKey } from '../support/stack.ts';

/**
 * The public install counts file: written from the install counters of every listed skill, read
 * by the site build (and by anyone) at `/.well-known/skills-installs.json`.
 */
let stack: TestStack;
let key: string;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
  key = await (await Client.signIn(stack, 'alice')).createKey();
});

async function publishSkill(overrides: Record<string, unknown> = {}): Promise<{ id: string; slug: string }> {
  return json(await withKey(stack, key, '/api/publish', { body: skillBody(overrides) }));
}

/** `times` installs of `id` at `at`, each from a client of its own (`from` repeats one address). */
let clients = 0;
async function deliver(id: string, times: number, at: string, from?: string): Promise<void> {
  stack.setNow(at);
  for (let i = 0; i < times; i++) {
    clients += 1;
    const address = from ?? `127.2.${Math.floor(clients / 250)}.${(clients % 250) + 1}`;
    expect((await stack.requestFrom(address, `/api/deliver/${id}?source=cli`)).status).toBe(200);
  }
}

async function published(): Promise<unknown> {
  const res = await stack.request(`/${INSTALLS_KEY}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('public, max-age=300');
  return res.json();
}

describe('the public install counts', () => {
  it('holds each listed skill’s distinct installs in all, in the last 7 and the last 30 UTC days, and leaves out skills nobody installed', async () => {
    const old = await publishSkill();
    const fresh = await publishSkill();
    const unused = await publishSkill();
    await deliver(old.id, 3, '2030-01-01T10:00:00.000Z'); // more than 30 days before "now"
    await deliver(old.id, 2, '2030-02-10T10:00:00.000Z');
    await deliver(fresh.id, 4, '2030-02-14T23:59:00.000Z');
    await deliver(fresh.id, 1, '2030-02-01T23:59:00.000Z');
    await stack.idle();
    stack.setNow('2030-02-15T08:00:00.000Z');

    expect(await publishInstallCounts(stack.deps)).toEqual({ skills: 3 });
    const doc = installsDocumentSchema.parse(await published());
    expect(doc).toEqual({
      generatedAt: '2030-02-15T08:00:00.000Z',
      skills: { [old.slug]: { total: 5, last7d: 2, last30d: 2 }, [fresh.slug]: { total: 5, last7d: 4, last30d: 5 } },
    });
    expect(Object.keys(doc.skills)).not.toContain(unused.slug);
  });

  it('says only the public figures: no sources, no clients, no days', async () => {
    const body = JSON.stringify(await published());
    expect(body).not.toMatch(/cli|web|api|daily|bySource|byClient|skills"?:\{"[^"]+":\{[^}]*distinct/);
  });

  it('counts a client once a day: 100 installs from one address are one install', async () => {
    const flooded = await publishSkill();
    await deliver(flooded.id, 100, '2030-02-15T07:00:00.000Z', '127.3.0.1');
    await deliver(flooded.id, 3, '2030-02-15T07:30:00.000Z');
    await stack.idle(); // the counts list the skills the catalog lists: the rebuild must have listed this one
    stack.setNow('2030-02-15T08:00:00.000Z');
    await publishInstallCounts(stack.deps);
    expect(((await published()) as { skills: Record<string, unknown> }).skills[flooded.slug]).toEqual({ total: 4, last7d: 4, last30d: 4 });
  });

  it('counts deliveries the counter still holds in memory', async () => {
    const skill = await publishSkill();
    await stack.idle();
    stack.setNow('2030-02-15T09:00:00.000Z');
    expect((await stack.request(`/api/deliver/${skill.id}`)).status).toBe(200);
    await publishInstallCounts(stack.deps);
    expect(((await published()) as { skills: Record<string, unknown> }).skills[skill.slug]).toEqual({ total: 1, last7d: 1, last30d: 1 });
  });

  it('leaves out a skill whose counter is damaged, and publishes every other skill’s counts', async () => {
    const damaged = await publishSkill();
    const healthy = await publishSkill();
    await deliver(damaged.id, 2, '2030-02-15T10:00:00.000Z');
    await deliver(healthy.id, 3, '2030-02-15T10:00:00.000Z');
    await stack.idle();
    const { db } = stack.deps;
    await db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: installTotalKey(damaged.id),
        UpdateExpression: 'SET cli = :bad',
        ExpressionAttributeValues: { ':bad': 'many' },
      }),
    );

    await publishInstallCounts(stack.deps);
    const { skills } = (await published()) as { skills: Record<string, unknown> };
    expect(skills[healthy.slug]).toEqual({ total: 3, last7d: 3, last30d: 3 });
    expect(skills).not.toHaveProperty(damaged.slug);
  });
});
