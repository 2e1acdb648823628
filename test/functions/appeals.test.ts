import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { appealListSchema, adminAppealDetailSchema, adminAppealListSchema } from '#core/appeals';
import { scanResultSchema } from '#core/scan/scan-result-schema';
import { registryDocumentSchema } from '#core/schemas';
import { slugify } from '#core/slug';
import { rescanAll } from '#functions/services/rescan';
import { CLEAN_SKILL_MD, MALICIOUS_SKILL_MD } from '../support/scan-samples.ts';
import { Client, createTestStack, json, renamedSkillMd, skillBody, skillBodyWithSkillMd, type TestStack, withKey } from '../support/stack.ts';

/**
 * Appeals (docs/api.md §7.15) through the real app, storage and rebuild: a refused version sent
 * again with a message waits privately (nothing static, nothing public, the same checks as its
 * publish), its author follows it, an admin approves it (published as sent, the scan carrying
 * `reviewed`, no rate limit spent) or declines it with a reason; who may do which.
 */
let stack: TestStack;
let alice: Client;
let aliceKey: string;
let root: Client;
let bob: Client;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000', SKILLPRESS_ADMINS: 'root' });
  alice = await Client.signIn(stack, 'alice');
  aliceKey = await alice.createKey();
  root = await Client.signIn(stack, 'root');
  bob = await Client.signIn(stack, 'bob');
});

const appeal = (key: string, body: unknown) => withKey(stack, key, '/api/appeals', { body });
const approve = (who: Client, id: string) => who.session(`/api/admin/appeals/${id}/approve`, { method: 'POST' });
const decline = (who: Client, id: string, reason = 'The script does download and run code') =>
  who.session(`/api/admin/appeals/${id}/decline`, { method: 'POST', body: { reason } });

async function staticKeys(): Promise<string[]> {
  await stack.idle();
  const listed = await stack.deps.s3.send(new ListObjectsV2Command({ Bucket: stack.config.staticBucket }));
  return (listed.Contents ?? []).map((o) => o.Key!);
}

describe('filing an appeal', () => {
  it('keeps a refused new skill private and pending (201), lists it for its author and the admins, and publishes nothing', async () => {
    const publish = skillBodyWithSkillMd(MALICIOUS_SKILL_MD);
    const slug = slugify(String(publish.name));
    expect((await withKey(stack, aliceKey, '/api/publish', { body: publish })).status).toBe(422);

    const res = await appeal(aliceKey, { message: 'The base64 line is a test fixture of our own detector.', publish });
    expect(res.status).toBe(201);
    expect(res.headers.get('ratelimit-limit')).toBe('1000');
    const filed = await json(res);
    expect(filed).toEqual({ id: expect.any(String), status: 'pending' });

    const mine = appealListSchema.parse(await json(await alice.session('/api/appeals')));
    const own = mine.appeals.find((a) => a.id === filed.id)!;
    expect(own).toMatchObject({ status: 'pending', kind: 'skill', slug, version: '1.0.0', message: expect.stringContaining('detector') });
    expect(own.scan.verdict).toBe('malicious');
    expect(own.scan.findings).toContainEqual(expect.objectContaining({ rule: 'decode-to-shell', severity: 'critical' }));

    const queue = adminAppealListSchema.parse(await json(await root.session('/api/admin/appeals')));
    expect(queue.appeals.find((a) => a.id === filed.id)).toMatchObject({
      author: 'alice',
      paid: false,
      files: [expect.objectContaining({ filename: 'SKILL.md' })],
    });
    const detail = adminAppealDetailSchema.parse(await json(await root.session(`/api/admin/appeals/${filed.id}`)));
    expect(detail.files[0]!.content).toContain('base64 -d | bash');

    // Nothing public: no registry document, no static file names it, the slug is still free to look up.
    expect((await stack.request(`/api/registry/${slug}`)).status).toBe(404);
    expect((await staticKeys()).filter((k) => k.includes(slug))).toEqual([]);
  });

  it('goes through the checks of the publish it stands for: a taken version, another author, a bad body, a clean version', async () => {
    const { id, slug } = await json(await withKey(stack, aliceKey, '/api/publish', { body: skillBody() }));
    const bobKey = await bob.createKey();
    const version = { version: '1.0.0', files: [{ filename: 'SKILL.md', content: renamedSkillMd(MALICIOUS_SKILL_MD, slug) }] };
    const taken = await appeal(aliceKey, { message: 'please', skillId: id, version });
    expect(taken.status).toBe(409);
    expect((await json(taken)).error.code).toBe('version_exists');

    const stranger = await appeal(bobKey, { message: 'please', skillId: id, version: { ...version, version: '1.1.0' } });
    expect(stranger.status).toBe(403);
    expect((await json(stranger)).error.code).toBe('forbidden');

    const both = await appeal(aliceKey, { message: 'please', skillId: id, version, publish: skillBody() });
    expect(both.status).toBe(400);
    expect((await appeal(aliceKey, { message: '  ', skillId: id, version: { ...version, version: '1.1.0' } })).status).toBe(400);

    const clean = await appeal(aliceKey, {
      message: 'please',
      skillId: id,
      version: { version: '1.2.0', files: [{ filename: 'SKILL.md', content: renamedSkillMd(CLEAN_SKILL_MD, slug) }] },
    });
    expect(clean.status).toBe(400);
    expect((await json(clean)).error.message).toMatch(/nothing to appeal/);
  });

  it('refuses a sixth pending appeal with 409 too_many_appeals, and anonymous callers with 401', async () => {
    const erin = await Client.signIn(stack, 'erin');
    const key = await erin.createKey();
    for (let i = 0; i < 5; i++) expect((await appeal(key, { message: `try ${i}`, publish: skillBodyWithSkillMd(MALICIOUS_SKILL_MD) })).status).toBe(201);
    const sixth = await appeal(key, { message: 'one more', publish: skillBodyWithSkillMd(MALICIOUS_SKILL_MD) });
    expect(sixth.status).toBe(409);
    expect((await json(sixth)).error.code).toBe('too_many_appeals');
    expect((await stack.request('/api/appeals')).status).toBe(401);
  });

  it('holds the cap of 5 pending appeals under 15 sent at once, and frees a place as one is decided', async () => {
    const gail = await Client.signIn(stack, 'gail');
    const key = await gail.createKey();
    const sent = await Promise.all(
      Array.from({ length: 15 }, (_, i) => appeal(key, { message: `at once ${i}`, publish: skillBodyWithSkillMd(MALICIOUS_SKILL_MD) })),
    );
    const statuses = await Promise.all(sent.map(async (res) => `${res.status} ${res.status === 201 ? '' : (await json(res)).error.code}`.trim()));
    expect(statuses.filter((s) => s === '201')).toHaveLength(5);
    expect(statuses.filter((s) => s !== '201')).toEqual(Array(10).fill('409 too_many_appeals'));
    const pending = (await json(await root.session('/api/admin/appeals'))).appeals.filter((a: { author: string }) => a.author === 'gail');
    expect(pending).toHaveLength(5);
    expect((await decline(root, pending[0].id)).status).toBe(200);
    expect((await appeal(key, { message: 'a place is free', publish: skillBodyWithSkillMd(MALICIOUS_SKILL_MD) })).status).toBe(201);
    expect((await appeal(key, { message: 'but only one', publish: skillBodyWithSkillMd(MALICIOUS_SKILL_MD) })).status).toBe(409);
  });
});

describe('deciding an appeal', () => {
  it('approves a new skill: published exactly as sent, its scan reviewed by the admin, in the registry; spending no slot', async () => {
    const limited = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1', SKILLPRESS_ADMINS: 'root' });
    const author = await Client.signIn(limited, 'frank');
    const key = await author.createKey();
    const admin = await Client.signIn(limited, 'root');
    const publish = skillBodyWithSkillMd(MALICIOUS_SKILL_MD);
    const filed = await json(await withKey(limited, key, '/api/appeals', { body: { message: 'fixture', publish } }));

    const res = await admin.session(`/api/admin/appeals/${filed.id}/approve`, { method: 'POST' });
    expect(res.status).toBe(200);
    const approved = await json(res);
    expect(approved).toMatchObject({ id: filed.id, status: 'approved', skillId: expect.any(String), decidedAt: expect.any(String) });

    await limited.idle();
    const doc = registryDocumentSchema.parse(await json(await limited.request(`/api/registry/${approved.slug}`)));
    expect(doc.scan?.verdict).toBe('malicious');
    expect(doc.scan?.reviewed).toEqual({ by: 'root', at: approved.decidedAt });
    expect(scanResultSchema.parse(doc.versions[0]!.scan).reviewed?.by).toBe('root');
    const delivered = await json(await limited.request(`/api/deliver/${approved.skillId}`));
    expect(delivered.files.find((f: { filename: string }) => f.filename === 'SKILL.md').content).toBe((publish.files as { content: string }[])[0]!.content);

    // The appeal took the minute's one publish slot; the approval took none: the slot is still spent, not twice.
    expect((await withKey(limited, key, '/api/publish', { body: skillBody() })).status).toBe(429);
    const again = await admin.session(`/api/admin/appeals/${filed.id}/approve`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect((await json(again)).error.code).toBe('appeal_decided');
    const mine = appealListSchema.parse(await json(await author.session('/api/appeals')));
    expect(mine.appeals[0]).toMatchObject({ status: 'approved', skillId: approved.skillId });
  });

  it('approves a version of a skill; a later rescan keeps the review while it finds nothing new, and never quarantines for it', async () => {
    const { id, slug } = await json(await withKey(stack, aliceKey, '/api/publish', { body: skillBody() }));
    const version = { version: '1.1.0', changelog: 'setup step', files: [{ filename: 'SKILL.md', content: renamedSkillMd(MALICIOUS_SKILL_MD, slug) }] };
    const filed = await json(await appeal(aliceKey, { message: 'the installer is our own', skillId: id, version }));
    expect((await approve(root, filed.id)).status).toBe(200);
    await stack.idle();
    const doc = await json(await stack.request(`/api/registry/${slug}`));
    expect(doc.currentVersion).toBe('1.1.0');
    expect(doc.scan).toMatchObject({ verdict: 'malicious', reviewed: { by: 'root' } });

    const report = await rescanAll(stack.deps);
    expect(report.quarantined).not.toContain(slug);
    await stack.idle();
    expect((await json(await stack.request(`/api/registry/${slug}`))).scan.reviewed).toEqual(doc.scan.reviewed);
  });

  it('declines with a reason the author reads; nothing is published; a decided appeal cannot be decided again', async () => {
    const publish = skillBodyWithSkillMd(MALICIOUS_SKILL_MD);
    const filed = await json(await appeal(aliceKey, { message: 'please', publish }));
    const res = await decline(root, filed.id);
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ status: 'declined', reason: 'The script does download and run code' });
    const mine = appealListSchema.parse(await json(await alice.session('/api/appeals')));
    expect(mine.appeals.find((a) => a.id === filed.id)).toMatchObject({ status: 'declined', reason: 'The script does download and run code' });
    expect((await approve(root, filed.id)).status).toBe(409);
    const queue = adminAppealListSchema.parse(await json(await root.session('/api/admin/appeals')));
    expect(queue.appeals.map((a) => a.id)).not.toContain(filed.id);
    await stack.idle();
    expect((await stack.request(`/api/registry/${slugify(String(publish.name))}`)).status).toBe(404);
  });

  it('keeps an appeal pending when its publish now fails, answering why (the slug was taken meanwhile)', async () => {
    const publish = skillBodyWithSkillMd(MALICIOUS_SKILL_MD);
    const filed = await json(await appeal(aliceKey, { message: 'please', publish }));
    const bobKey = await bob.createKey();
    expect((await withKey(stack, bobKey, '/api/publish', { body: skillBody({ name: publish.name }) })).status).toBe(201);
    const res = await approve(root, filed.id);
    expect(res.status).toBe(409);
    expect((await json(res)).error.code).toBe('slug_taken');
    const queue = adminAppealListSchema.parse(await json(await root.session('/api/admin/appeals')));
    expect(queue.appeals.find((a) => a.id === filed.id)?.status).toBe('pending');
  });

  it('is for admins alone: the author and others get 403, an unknown appeal 404, an API key 401', async () => {
    const filed = await json(await appeal(aliceKey, { message: 'please', publish: skillBodyWithSkillMd(MALICIOUS_SKILL_MD) }));
    for (const who of [alice, bob]) {
      expect((await approve(who, filed.id)).status).toBe(403);
      expect((await decline(who, filed.id)).status).toBe(403);
      expect((await who.session('/api/admin/appeals')).status).toBe(403);
      expect((await who.session(`/api/admin/appeals/${filed.id}`)).status).toBe(403);
    }
    expect((await approve(root, 'no-such-appeal')).status).toBe(404);
    expect((await withKey(stack, aliceKey, `/api/admin/appeals/${filed.id}/approve`)).status).toBe(401);
    // Bob's list holds none of Alice's appeals.
    const bobs = appealListSchema.parse(await json(await bob.session('/api/appeals')));
    expect(bobs.appeals.map((a) => a.id)).not.toContain(filed.id);
  });
});
