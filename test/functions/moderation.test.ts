import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleIntegrity, fileEntries } from '#core/bundle';
import { putBlobs } from '#functions/content/blobs';
import { prepareFiles } from '#functions/services/publishing';
import { userKey } from '#functions/store/keys';
import { getSkill, listVersions, putVersion } from '#functions/store/skills';
import { type FakeStripe, fakeStripeEnv, startFakeStripe } from '../support/fake-stripe.ts';
import { Client, createTestStack, json, skillBody, skillFile, type TestStack, withKey } from '../support/stack.ts';

/**
 * Reports and quarantine (docs/api.md §7.10) through the real app, storage and rebuild: who may
 * report and how often, three reporters quarantining a skill, what a quarantined skill looks like
 * from outside (registry, catalog, discovery index, delivery) and to its author, and the admins'
 * queue, quarantine and release.
 */
let stack: TestStack;
let alice: Client;
let aliceKey: string;
let root: Client;
let stripe: FakeStripe;
const users: Record<string, Client> = {};

beforeAll(async () => {
  stripe = await startFakeStripe();
  stack = await createTestStack(
    {},
    {
      SKILLPRESS_PUBLISH_LIMIT: '1000',
      SKILLPRESS_VERSION_LIMIT: '1000',
      SKILLPRESS_REPORT_LIMIT: '1000',
      SKILLPRESS_ADMINS: 'Someone-Else, root',
      ...fakeStripeEnv(stripe),
    },
  );
  alice = await Client.signIn(stack, 'alice');
  aliceKey = await alice.createKey();
  root = await Client.signIn(stack, 'root');
  for (const login of ['bob', 'carol', 'dave', 'erin']) users[login] = await Client.signIn(stack, login);
});
afterAll(() => stripe.close());

async function publish(overrides: Record<string, unknown> = {}): Promise<{ id: string; slug: string }> {
  const res = await withKey(stack, aliceKey, '/api/publish', { body: skillBody(overrides) });
  expect(res.status).toBe(201);
  return json(res);
}

const report = (who: Client, id: string, body: unknown = { reason: 'malware' }) => who.session(`/api/skills/${id}/reports`, { method: 'POST', body });
const quarantine = (who: Client, id: string, reason = 'steals SSH keys') =>
  who.session(`/api/admin/skills/${id}/quarantine`, { method: 'POST', body: { reason } });
const release = (who: Client, id: string) => who.session(`/api/admin/skills/${id}/quarantine`, { method: 'DELETE' });

/** What the outside world sees of a skill once the rebuild has run. */
async function visibility(skill: { id: string; slug: string }) {
  await stack.idle();
  const catalog = await json(await stack.request('/.well-known/skills.json'));
  const discovery = await json(await stack.request('/.well-known/agent-skills/index.json'));
  return {
    registry: await json(await stack.request(`/api/registry/${skill.slug}`)),
    versions: await json(await stack.request(`/api/registry/${skill.slug}/versions`)),
    inCatalog: catalog.skills.some((s: { slug: string }) => s.slug === skill.slug),
    inDiscovery: discovery.skills.some((s: { name: string }) => s.name === skill.slug),
    delivery: (await stack.request(`/api/deliver/${skill.id}`)).status,
  };
}

const stub = (skill: { id: string; slug: string }) => ({ id: skill.id, slug: skill.slug, name: expect.any(String), author: 'alice', status: 'quarantined' });

/** Moves an account's first sign-in `days` back: what its age is judged by. */
async function backdate(on: TestStack, who: Client, days: number): Promise<void> {
  const { user } = await json<{ user: { id: string } }>(await who.session('/api/me'));
  await on.deps.db.doc.send(
    new UpdateCommand({
      TableName: on.deps.db.table,
      Key: userKey(user.id),
      UpdateExpression: 'SET createdAt = :at',
      ExpressionAttributeValues: { ':at': new Date(Date.now() - days * 86_400_000).toISOString() },
    }),
  );
}

let reporters = 0;
/**
 * A fresh reporter of the given standing (docs/api.md §7.10): `new` signed in a moment ago,
 * `member` a year old, `author` a year old with a skill of its own (weight 1), `proven` a year old
 * with a report an admin upheld (weight 2).
 */
async function reporter(kind: 'new' | 'member' | 'author' | 'proven'): Promise<Client> {
  const who = await Client.signIn(stack, `${kind}-${++reporters}`);
  if (kind === 'new') return who;
  await backdate(stack, who, 365);
  if (kind === 'author') expect((await withKey(stack, await who.createKey(), '/api/publish', { body: skillBody() })).status).toBe(201);
  if (kind === 'proven') {
    const bad = await publish();
    expect((await report(who, bad.id)).status).toBe(201);
    expect((await quarantine(root, bad.id)).status).toBe(200);
  }
  return who;
}

describe('POST /api/skills/{id}/reports', () => {
  it('files a report (201) and refuses a second open one by the same user with 409 already_reported', async () => {
    const skill = await publish();
    const res = await report(users.bob!, skill.id, { reason: 'spam', details: 'Same text as twenty other skills.\nAll by new accounts.' });
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({
      skillId: skill.id,
      reason: 'spam',
      details: 'Same text as twenty other skills.\nAll by new accounts.',
      createdAt: expect.any(String),
      status: 'open',
    });
    const again = await report(users.bob!, skill.id, { reason: 'malware' });
    expect(again.status).toBe(409);
    expect((await json(again)).error.code).toBe('already_reported');
  });

  it('refuses the author (403), an unknown skill (404), an API key (401), a bad reason (400) and another origin (403 csrf_rejected)', async () => {
    const skill = await publish();
    expect((await json(await report(alice, skill.id))).error.code).toBe('forbidden');
    expect((await report(users.bob!, '00000000-0000-0000-0000-000000000000')).status).toBe(404);
    const keyed = await withKey(stack, await users.bob!.createKey(), `/api/skills/${skill.id}/reports`, { body: { reason: 'spam' } });
    expect(keyed.status).toBe(401);
    expect((await report(users.bob!, skill.id, { reason: 'boring' })).status).toBe(400);
    expect((await report(users.bob!, skill.id, { reason: 'spam', extra: 1 })).status).toBe(400);
    const foreign = await users.bob!.session(`/api/skills/${skill.id}/reports`, {
      method: 'POST',
      body: { reason: 'spam' },
      headers: { origin: 'https://evil.example' },
    });
    expect((await json(foreign)).error.code).toBe('csrf_rejected');
    // None of those counted: one real report is still only one.
    expect((await json(await alice.session(`/api/skills/${skill.id}/reports`))).reports).toEqual([]);
  });
});

describe('the report rate limit', () => {
  it('refuses an account the report over its hourly limit with 429, a report refused for another reason spending nothing', async () => {
    const limited = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000', SKILLPRESS_REPORT_LIMIT: '3' });
    const key = await (await Client.signIn(limited, 'kim')).createKey();
    const skills = [];
    for (let i = 0; i < 4; i++) skills.push(await json<{ id: string }>(await withKey(limited, key, '/api/publish', { body: skillBody() })));
    const lou = await Client.signIn(limited, 'lou');
    const file = (id: string) => lou.session(`/api/skills/${id}/reports`, { method: 'POST', body: { reason: 'spam' } });
    expect((await file(skills[0]!.id)).status).toBe(201);
    expect((await file(skills[0]!.id)).status).toBe(409); // already reported: no slot spent
    expect((await file(skills[1]!.id)).status).toBe(201);
    const third = await file(skills[2]!.id);
    expect(third.status).toBe(201);
    const over = await file(skills[3]!.id);
    expect(over.status).toBe(429);
    expect((await json(over)).error.code).toBe('rate_limited');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(60);
    expect(over.headers.get('ratelimit-limit')).toBe('3');
    // Another account reports as before.
    expect(
      (await (await Client.signIn(limited, 'max')).session(`/api/skills/${skills[3]!.id}/reports`, { method: 'POST', body: { reason: 'spam' } })).status,
    ).toBe(201);
    limited.setNow(new Date(Date.now() + 3601_000));
    expect((await file(skills[3]!.id)).status).toBe(201);
  });
});

describe('reports that weigh enough', () => {
  it('from three established authors quarantine the skill: it leaves the catalog and the discovery index, its registry keeps only who it is, delivery is 403', async () => {
    const skill = await publish();
    const before = await visibility(skill);
    expect(before).toMatchObject({ inCatalog: true, inDiscovery: true, delivery: 200 });
    expect(before.registry.currentVersion).toBe('1.0.0');

    const [one, two, three] = [await reporter('author'), await reporter('author'), await reporter('author')];
    expect((await report(one, skill.id)).status).toBe(201);
    expect((await report(two, skill.id, { reason: 'impersonation' })).status).toBe(201);
    // Two reporters, one of them twice, and spam from a third: still listed.
    expect((await report(one, skill.id)).status).toBe(409);
    expect((await report(three, skill.id, { reason: 'spam' })).status).toBe(201);
    expect(await visibility(skill)).toMatchObject({ inCatalog: true, delivery: 200 });

    expect((await report(await reporter('author'), skill.id)).status).toBe(201);
    const after = await visibility(skill);
    expect(after).toEqual({ registry: stub(skill), versions: stub(skill), inCatalog: false, inDiscovery: false, delivery: 403 });
    const refused = await json(await stack.request(`/api/deliver/${skill.id}?version=1.0.0`));
    expect(refused.error.code).toBe('quarantined');

    // The author sees the quarantine and the reports, not who filed them.
    const mine = (await json(await alice.session('/api/me/skills'))).skills.find((s: { id: string }) => s.id === skill.id);
    expect(mine.quarantine).toEqual({
      reason: 'reported by 3 users with standing (malware, impersonation; weight 3); hidden until an admin reviews it',
      since: expect.any(String),
    });
    const { reports } = await json(await alice.session(`/api/skills/${skill.id}/reports`));
    expect(reports.map((r: { reason: string; status: string }) => [r.reason, r.status])).toEqual([
      ['malware', 'open'],
      ['spam', 'open'],
      ['impersonation', 'open'],
      ['malware', 'open'],
    ]);
    expect(JSON.stringify(reports)).not.toMatch(/author-|weight|basis/);
    expect((await users.erin!.session(`/api/skills/${skill.id}/reports`)).status).toBe(403);

    // A full rebuild from the table keeps it out too.
    await stack.runtime.rebuildAll();
    expect(await visibility(skill)).toMatchObject({ registry: stub(skill), inCatalog: false, inDiscovery: false });
  });

  it('from two accounts with reports upheld before quarantine it; one alone, however proven, does not', async () => {
    const skill = await publish();
    expect((await report(await reporter('proven'), skill.id)).status).toBe(201);
    expect(await visibility(skill)).toMatchObject({ inCatalog: true, delivery: 200 });
    expect((await report(await reporter('proven'), skill.id, { reason: 'impersonation' })).status).toBe(201);
    expect(await visibility(skill)).toMatchObject({ inCatalog: false, delivery: 403 });
  });

  it('keep a quarantined paid skill from its own author, and from buyers', async () => {
    const skill = await publish({ paid: true, price: { amount: 500, currency: 'EUR' } });
    expect((await users.erin!.session(`/api/skills/${skill.id}/checkout`, { method: 'POST' })).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await report(await reporter('author'), skill.id)).status).toBe(201);
    await stack.idle();
    const res = await alice.session(`/api/deliver/${skill.id}`);
    expect(res.status).toBe(403);
    expect((await json(res)).error.code).toBe('quarantined');
    const checkout = await users.erin!.session(`/api/skills/${skill.id}/checkout`, { method: 'POST' });
    expect(checkout.status).toBe(403);
    expect((await json(checkout)).error.code).toBe('quarantined');
  });
});

describe('reports that weigh nothing (the attack of issue 34)', () => {
  it('three accounts created seconds earlier send 114 reports across a catalog of 38 skills at once: none is quarantined, the account limit refuses 84, and the admins see the rest', async () => {
    const own = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_ADMINS: 'root' });
    const key = await (await Client.signIn(own, 'owner')).createKey();
    const catalog = await Promise.all(
      Array.from({ length: 38 }, async () => json<{ id: string; slug: string }>(await withKey(own, key, '/api/publish', { body: skillBody() }))),
    );
    const throwaways = await Promise.all(['x1', 'x2', 'x3'].map((login) => Client.signIn(own, login)));
    const answers = await Promise.all(
      throwaways.flatMap((who) => catalog.map((skill) => who.session(`/api/skills/${skill.id}/reports`, { method: 'POST', body: { reason: 'malware' } }))),
    );
    const counts: Record<number, number> = {};
    for (const res of answers) counts[res.status] = (counts[res.status] ?? 0) + 1;
    expect(counts).toEqual({ 201: 30, 429: 84 });

    await own.idle();
    const listed = (await json(await own.request('/.well-known/skills.json'))).skills as { slug: string }[];
    expect(listed.map((s) => s.slug).sort()).toEqual(catalog.map((s) => s.slug).sort());
    const { reports } = await json(await (await Client.signIn(own, 'root')).session('/api/admin/reports'));
    expect(reports).toHaveLength(30);
    for (const r of reports) expect(r).toMatchObject({ weight: 0, basis: 'account 0 days old', quarantined: false });
  }, 120_000);

  it('from members who never published nor had a report upheld, however many, wait for the admins', async () => {
    const skill = await publish();
    for (let i = 0; i < 5; i++) expect((await report(await reporter('member'), skill.id)).status).toBe(201);
    expect(await visibility(skill)).toMatchObject({ inCatalog: true, delivery: 200 });
  });

  it('from the reporters whose reports of a skill an admin dismissed do not quarantine it again, though they still count elsewhere', async () => {
    const skill = await publish();
    const [one, two] = [await reporter('proven'), await reporter('proven')];
    await report(one, skill.id);
    await report(two, skill.id);
    expect(await visibility(skill)).toMatchObject({ inCatalog: false, delivery: 403 });
    expect((await release(root, skill.id)).status).toBe(204);
    expect(await visibility(skill)).toMatchObject({ inCatalog: true, delivery: 200 });

    // Each still has as many reports upheld as dismissed, but not of this skill.
    expect((await report(one, skill.id)).status).toBe(201);
    expect((await report(two, skill.id)).status).toBe(201);
    expect(await visibility(skill)).toMatchObject({ inCatalog: true, delivery: 200 });
    const queued = (await json(await root.session('/api/admin/reports'))).reports.filter((r: { skillId: string }) => r.skillId === skill.id);
    expect(queued.map((r: { weight: number; basis: string }) => [r.weight, r.basis])).toEqual([
      [0, 'an admin dismissed their earlier report of this skill'],
      [0, 'an admin dismissed their earlier report of this skill'],
    ]);
    // Of another skill, their reports weigh as before.
    const other = await publish();
    expect((await report(one, other.id)).status).toBe(201);
    const onOther = (await json(await root.session('/api/admin/reports'))).reports.find((r: { skillId: string }) => r.skillId === other.id);
    expect(onOther).toMatchObject({ weight: 2, basis: '1 report upheld' });
    // A second release of the first skill leaves them more reports dismissed than upheld: from then on they weigh nothing anywhere.
    expect((await release(root, skill.id)).status).toBe(204);
    const third = await publish();
    expect((await report(one, third.id)).status).toBe(201);
    const onThird = (await json(await root.session('/api/admin/reports'))).reports.find((r: { skillId: string }) => r.skillId === third.id);
    expect(onThird).toMatchObject({ weight: 0, basis: '2 reports dismissed, 1 upheld' });
  });
});

describe('admins', () => {
  it('list open reports with the reporter and the skill; everyone else is refused with 403', async () => {
    const skill = await publish();
    await report(users.erin!, skill.id, { reason: 'other', details: 'asks for my password' });
    const res = await root.session('/api/admin/reports');
    expect(res.status).toBe(200);
    const { reports } = await json(res);
    expect(reports[0]).toEqual({
      skillId: skill.id,
      slug: skill.slug,
      name: expect.any(String),
      reporter: 'erin',
      weight: 0,
      basis: 'account 0 days old',
      reason: 'other',
      details: 'asks for my password',
      createdAt: expect.any(String),
      status: 'open',
      quarantined: false,
    });
    for (const who of [alice, users.bob!]) {
      const refused = await who.session('/api/admin/reports');
      expect(refused.status).toBe(403);
      expect((await json(refused)).error.code).toBe('forbidden');
    }
    expect((await stack.request('/api/admin/reports')).status).toBe(401);
  });

  it('are told so by /api/me, and nobody else is: the dashboard asks for the reports only then', async () => {
    expect((await json(await root.session('/api/me'))).admin).toBe(true);
    expect((await json(await alice.session('/api/me'))).admin).toBe(false);
  });

  it('quarantine a skill by hand, upholding its open reports, and only admins may', async () => {
    const skill = await publish();
    await report(users.bob!, skill.id);
    expect((await quarantine(users.bob!, skill.id)).status).toBe(403);
    expect((await quarantine(alice, skill.id)).status).toBe(403);
    expect(await visibility(skill)).toMatchObject({ inCatalog: true, delivery: 200 });

    const res = await quarantine(root, skill.id, 'steals SSH keys');
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ skillId: skill.id, slug: skill.slug, status: 'quarantined', reason: 'steals SSH keys', since: expect.any(String) });
    expect(await visibility(skill)).toMatchObject({ registry: stub(skill), inCatalog: false, inDiscovery: false, delivery: 403 });
    expect((await json(await alice.session(`/api/skills/${skill.id}/reports`))).reports.map((r: { status: string }) => r.status)).toEqual(['upheld']);
    const queue = (await json(await root.session('/api/admin/reports'))).reports;
    expect(queue.some((r: { skillId: string }) => r.skillId === skill.id)).toBe(false);

    // Again: the quarantine that stands is kept.
    const again = await json(await quarantine(root, skill.id, 'another reason'));
    expect(again.reason).toBe('steals SSH keys');
    expect((await quarantine(root, '00000000-0000-0000-0000-000000000000')).status).toBe(404);
  });

  it('release a skill: it is listed and delivered again, its reports are dismissed, and its reporters do not count on it again', async () => {
    const skill = await publish();
    const [one, two, three] = [await reporter('author'), await reporter('author'), await reporter('author')];
    for (const who of [one, two, three]) await report(who, skill.id);
    expect(await visibility(skill)).toMatchObject({ inCatalog: false, delivery: 403 });

    expect((await release(users.bob!, skill.id)).status).toBe(403);
    expect((await release(root, skill.id)).status).toBe(204);
    const after = await visibility(skill);
    expect(after).toMatchObject({ inCatalog: true, inDiscovery: true, delivery: 200 });
    expect(after.registry.currentVersion).toBe('1.0.0');
    expect(after.versions.versions).toHaveLength(1);
    expect((await json(await alice.session(`/api/skills/${skill.id}/reports`))).reports.map((r: { status: string }) => r.status)).toEqual([
      'dismissed',
      'dismissed',
      'dismissed',
    ]);
    expect((await json(await alice.session('/api/me/skills'))).skills.find((s: { id: string }) => s.id === skill.id).quarantine).toBeUndefined();

    // The same users may report again, and their reports wait for the admins.
    for (const who of [one, two, three]) expect((await report(who, skill.id)).status).toBe(201);
    expect(await visibility(skill)).toMatchObject({ inCatalog: true, delivery: 200 });
    // Releasing a skill that is not quarantined dismisses its open reports all the same.
    expect((await release(root, skill.id)).status).toBe(204);
    expect((await json(await root.session('/api/admin/reports'))).reports.some((r: { skillId: string }) => r.skillId === skill.id)).toBe(false);
  });
});

describe('a quarantined skill of an organisation', () => {
  it('is missing from the organisation’s public page, and only its members read the admins’ reason', async () => {
    const post = (client: Client, path: string, body: unknown) => client.session(path, { method: 'POST', body });
    expect((await post(alice, '/api/orgs', { login: 'quarantine-co', name: 'Q Co' })).status).toBe(201);
    const res = await withKey(stack, aliceKey, '/api/publish', { body: skillBody({ owner: 'quarantine-co' }) });
    const skill = await json<{ id: string; slug: string }>(res);
    expect((await quarantine(root, skill.id, 'steals SSH keys')).status).toBe(200);
    for (const page of [await stack.request('/api/orgs/quarantine-co'), await users.bob!.session('/api/orgs/quarantine-co')]) {
      const text = await page.text();
      expect(page.status).toBe(200);
      expect(JSON.parse(text).skills).toEqual([]);
      expect(text).not.toContain('steals SSH keys');
    }
    const members = await json(await alice.session('/api/orgs/quarantine-co'));
    expect(members.skills.map((s: { slug: string; quarantine?: { reason: string } }) => [s.slug, s.quarantine?.reason])).toEqual([
      [skill.slug, 'steals SSH keys'],
    ]);
  });
});

describe("a quarantined skill's author", () => {
  it('cannot publish a version of it: 403 quarantined, and nothing is stored', async () => {
    const skill = await publish();
    expect((await quarantine(root, skill.id)).status).toBe(200);
    const body = { version: '1.1.0', files: [skillFile(skill.slug, '# still at it')] };
    const res = await withKey(stack, aliceKey, `/api/skills/${skill.id}/versions`, { body });
    expect(res.status).toBe(403);
    expect((await json(res)).error.code).toBe('quarantined');
    expect((await listVersions(stack.deps.db, skill.id)).map((v) => v.version)).toEqual(['1.0.0']);
    // Someone else still learns only that it is not theirs.
    const bobs = await withKey(stack, await users.bob!.createKey(), `/api/skills/${skill.id}/versions`, { body });
    expect((await json(bobs)).error.code).toBe('forbidden');
  });

  it('gets no static file for a version stored while it is quarantined (a publish that raced the quarantine), until it is released', async () => {
    const skill = await publish();
    expect((await quarantine(root, skill.id)).status).toBe(200);
    await stack.idle();
    // What a publish that read the skill just before the quarantine goes on to store.
    const files = prepareFiles([skillFile(skill.slug, '# raced')]);
    await putBlobs(stack.deps.blobs, files);
    await putVersion(stack.deps.db, {
      skillId: skill.id,
      version: '1.1.0',
      changelog: '',
      publishedAt: new Date().toISOString(),
      files: fileEntries(files).map((entry) => ({ ...entry, encoding: 'utf8' as const })),
      dependencies: {},
      integrity: bundleIntegrity(files),
    });
    stack.deps.changed([skill.id]);
    await stack.idle();
    // 1.0.0's bundle was written before the quarantine (bundles are immutable); 1.1.0 gets none.
    expect((await stack.request(`/bundles/${skill.slug}/1.1.0.json`)).status).toBe(404);
    expect(await json(await stack.request(`/api/registry/${skill.slug}`))).toEqual(stub(skill));

    expect((await release(root, skill.id)).status).toBe(204);
    await stack.idle();
    expect((await getSkill(stack.deps.db, skill.id))!.quarantine).toBeUndefined();
    for (const version of ['1.0.0', '1.1.0']) expect((await stack.request(`/bundles/${skill.slug}/${version}.json`)).status, version).toBe(200);
  });
});
