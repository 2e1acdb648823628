import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { imitationKeys, lookalikeKeys } from '#core/slug-imitation';
import { lookalikeKey } from '#functions/store/keys';
import { indexLookalikes } from '#functions/store/lookalikes';
import { recordAwsCalls } from '../support/aws-calls.ts';
import { Client, createTestStack, json, skillBody, type TestStack, withKey } from '../support/stack.ts';

/**
 * The imitation check (docs/agent-skills.md) through the API: a new skill whose slug reads like
 * another author's skill with at least 100 installs is a 409 slug_too_similar, found through the
 * lookalike index that installs and the full rebuild keep, at a fixed cost per publish.
 */

let stack: TestStack;
let aliceKey: string;
let bobKey: string;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
  aliceKey = await (await Client.signIn(stack, 'alice')).createKey();
  bobKey = await (await Client.signIn(stack, 'bob')).createKey();
  // Bob's popular skills, each installed 100 times, and one that stops one install short.
  for (const slug of ['pdf-tools', 'markdown', 'slack', 'ops', 'git', 'docx', 'demo', 'json', 'yarn']) await popular(slug, 100);
  await popular('csv-kit', 99);
  await popular('invoice-wizard', 100, 'Invoice Wizard');
});

const ids = new Map<string, string>();

async function popular(slug: string, installs: number, name?: string): Promise<void> {
  const res = await withKey(stack, bobKey, '/api/publish', { body: skillBody({ slug, ...(name ? { name } : {}) }) });
  expect(res.status).toBe(201);
  const { id } = await json(res);
  ids.set(slug, id);
  await install(id, installs);
}

/** Each install from a client of its own (another address): the imitation rule counts distinct clients. */
let clients = 0;
const nextAddress = () => {
  clients += 1;
  return `127.1.${Math.floor(clients / 250)}.${(clients % 250) + 1}`;
};

async function install(id: string, times: number, from: () => string = nextAddress): Promise<void> {
  for (let done = 0; done < times; done += 20) {
    const batch = Array.from({ length: Math.min(20, times - done) }, () => stack.requestFrom(from(), `/api/deliver/${id}?source=cli`));
    for (const res of await Promise.all(batch)) expect(res.status).toBe(200);
  }
  await stack.deps.downloads.flush();
}

const publishAs = (key: string, slug: string) => withKey(stack, key, '/api/publish', { body: skillBody({ slug }) });

describe('a new slug that imitates another author’s popular skill', () => {
  // docs/agent-skills.md, "The imitation check": every refused row of its table.
  it.each([
    ['pdf-too1s', 'pdf-tools'],
    ['pdf-t00ls', 'pdf-tools'],
    ['pdftools', 'pdf-tools'],
    ['p-d-f-tools', 'pdf-tools'],
    ['pdf-tool', 'pdf-tools'],
    ['pdf-toolss', 'pdf-tools'],
    ['pdf-taols', 'pdf-tools'],
    ['pdf-tools-2', 'pdf-tools'],
    ['p0f-tools', 'pdf-tools'],
    ['pdf-too1z', 'pdf-tools'],
    ['rnarkdown', 'markdown'],
    ['rnarkdovvn', 'markdown'],
    ['5lack', 'slack'],
    ['0ps', 'ops'],
    ['g-it', 'git'],
  ])('refuses %s with 409 slug_too_similar, similarTo %s, and creates nothing', async (slug, similarTo) => {
    const res = await publishAs(aliceKey, slug);
    expect(res.status).toBe(409);
    const { error } = await json(res);
    expect(error).toEqual({ code: 'slug_too_similar', message: expect.stringContaining(`"${similarTo}"`), details: { similarTo } });
    expect((await stack.request(`/api/registry/${slug}`)).status).toBe(404);
  });

  // And every accepted row.
  it.each([
    ['pdf-tools-pro', 'three characters added'],
    ['csv-kits', 'csv-kit has 99 installs'],
    ['csv-tools', 'two edits from pdf-tools'],
    ['docs', 'one edit from docx, but four letters'],
    ['deno', 'one edit from demo, but four letters'],
    ['jsonl', 'json has four letters'],
    ['yaml', 'yarn folds to yam'],
    ['g1t', '1 folds to l, not i'],
  ])('accepts %s (%s)', async (slug) => {
    expect((await publishAs(aliceKey, slug)).status).toBe(201);
  });

  it('lets an author echo their own popular skill', async () => {
    expect((await publishAs(bobKey, 'pdf-tools-2')).status).toBe(201);
  });

  it('catches a skill from the install that takes it to 100', async () => {
    expect((await publishAs(aliceKey, 'csv-klt')).status).toBe(201);
    await install(ids.get('csv-kit')!, 1);
    const res = await publishAs(aliceKey, 'csv-k1t');
    expect(res.status).toBe(409);
    expect((await json(res)).error.details).toEqual({ similarTo: 'csv-kit' });
  });

  it('checks new skills only: versions of a skill published before its lookalike became popular go on', async () => {
    const { id, slug } = await json(await publishAs(aliceKey, 'gitt-hub'));
    const popularNow = await json(await withKey(stack, bobKey, '/api/publish', { body: skillBody({ slug: 'gitthub' }) }));
    await install(popularNow.id, 100);
    expect((await publishAs(aliceKey, 'gitthubb')).status).toBe(409);
    const files = [{ filename: 'SKILL.md', content: `---\nname: ${slug}\ndescription: d\n---\n` }];
    expect((await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: { version: '1.1.0', files } })).status).toBe(201);
  });

  it('counts distinct clients: 150 installs from one address and user agent do not make a skill worth imitating', async () => {
    const { id } = await json(await withKey(stack, bobKey, '/api/publish', { body: skillBody({ slug: 'zebra-notes' }) }));
    await install(id, 150, () => '127.9.9.9');
    expect((await publishAs(aliceKey, 'zebra-n0tes')).status).toBe(201);
  });

  it('weighs every lookalike, however many others share its keys: a flood of 60 popular lookalikes hides nothing', async () => {
    // Another owner's 60 popular skills under pdf-tools' keys, their ids sorting before any other:
    // what an organisation flooding the name with installed skills puts in the index.
    for (let n = 0; n < 60; n++) {
      const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
      await indexLookalikes(stack.deps.db, { id, slug: 'pdf-tools', name: `Flood ${n}` });
    }
    const res = await publishAs(aliceKey, 'pdf-toolx');
    expect(res.status).toBe(409);
    expect((await json(res)).error.details).toEqual({ similarTo: 'pdf-tools' });
  });

  it('answers slug_taken, not slug_too_similar, for a slug that is exactly taken', async () => {
    expect((await json(await publishAs(aliceKey, 'pdf-tools'))).error.code).toBe('slug_taken');
  });
});

describe('a new display name that reads the same as another author’s popular skill’s name', () => {
  const publishNamed = (key: string, slug: string, name: string) => withKey(stack, key, '/api/publish', { body: skillBody({ slug, name }) });

  it.each([
    ['billing-helper', 'Invoice Wizard'],
    ['billing-helper-2', 'invoice wizard'],
    ['billing-helper-3', 'Invoice Wіzard'],
    ['billing-helper-4', 'ＩＮＶＯＩＣＥ Wizard!'],
  ])('refuses %s named %j with 409 name_too_similar, similarTo invoice-wizard, and creates nothing', async (slug, name) => {
    const res = await publishNamed(aliceKey, slug, name);
    expect(res.status).toBe(409);
    expect((await json(res)).error).toEqual({
      code: 'name_too_similar',
      message: expect.stringContaining('"invoice-wizard"'),
      details: { similarTo: 'invoice-wizard' },
    });
    expect((await stack.request(`/api/registry/${slug}`)).status).toBe(404);
  });

  it('accepts another name, and the author’s own echo', async () => {
    expect((await publishNamed(aliceKey, 'billing-wizardry', 'Invoice Wizardry')).status).toBe(201);
    expect((await publishNamed(bobKey, 'invoice-wizard-lite', 'Invoice Wizard')).status).toBe(201);
  });
});

describe('what the check costs', () => {
  it('reads the lookalike index and then the candidates in one BatchGetItem each, however many skills there are', async () => {
    // The rebuilds of earlier publishes (their batched fingerprint writes among them) are done.
    await stack.idle();
    const recorder = recordAwsCalls(stack.deps);
    recorder.take();
    const res = await publishAs(aliceKey, 'pdf-toolz');
    expect(res.status).toBe(409);
    // The key's owner is read or not, as the process remembers it: not the check's doing.
    const reads = recorder
      .take()
      .filter((r) => r.call.service === 'dynamodb' && r.call.action !== 'dynamodb:UpdateItem' && !r.call.partitionKeys.some((pk) => pk.startsWith('USER#')));
    // The API key; the slug's claim; the index entries under the slug's and the name's keys (one batch); the
    // candidates' META and totals (two more, sent at once). No scan, no query: nothing that grows
    // with the number of skills.
    expect(reads.map((r) => r.call.action).sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
    ]);
  });
});

describe('the full rebuild', () => {
  it('puts back what the lookalike index lost', async () => {
    // A lost write: one of pdf-tools' entries is gone, so one-edit lookalikes through it pass.
    const lost = 'pdfools';
    expect(lookalikeKeys('pdf-tools')).toContain(lost);
    await stack.deps.db.doc.send(new DeleteCommand({ TableName: stack.deps.db.table, Key: lookalikeKey(lost) }));
    expect((await publishAs(aliceKey, 'pdf-ools')).status).toBe(201);
    const report = await stack.runtime.rebuildAll();
    expect(report.failed).toEqual([]);
    const res = await publishAs(aliceKey, 'pdfo-ols');
    expect(res.status).toBe(409);
    expect((await json(res)).error.details).toEqual({ similarTo: 'pdf-tools' });
  });

  it('indexes the names of skills that were popular before names were indexed', async () => {
    // As a skill indexed by its slug alone was: its name's entry is not there.
    const nameKey = imitationKeys('invoice-wizard', 'Invoice Wizard').find((key) => key.startsWith('name:'))!;
    await stack.deps.db.doc.send(new DeleteCommand({ TableName: stack.deps.db.table, Key: lookalikeKey(nameKey) }));
    const named = (slug: string) => withKey(stack, aliceKey, '/api/publish', { body: skillBody({ slug, name: 'Invoice Wizard' }) });
    expect((await named('bills-before')).status).toBe(201);
    expect((await stack.runtime.rebuildAll()).failed).toEqual([]);
    expect((await json(await named('bills-after'))).error).toMatchObject({ code: 'name_too_similar', details: { similarTo: 'invoice-wizard' } });
  });
});
