import * as z from 'zod/mini';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { skillCheckSchema } from '#core/skill-check';
import { MALICIOUS_SKILL_MD, SUSPICIOUS_EXCERPT, SUSPICIOUS_SKILL_MD } from '../support/scan-samples.ts';
import { Client, createTestStack, json, renamedSkillMd, skillBody, skillMd, type TestStack, withKey } from '../support/stack.ts';

/**
 * The check before a publish (docs/api.md §7.4, `POST /api/skills/check`) and the session's
 * publish (`POST /api/skills`) the web upload makes, through the real app and storage: the
 * answer places each problem on its line, reports the scan and the effects, stores nothing and
 * spends no publish slot; who may ask, and what a paid skill's answer never quotes.
 */
let stack: TestStack;
let alice: Client;
let aliceKey: string;
let bob: Client;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000', SKILLPRESS_CHECK_LIMIT: '999' });
  alice = await Client.signIn(stack, 'alice');
  aliceKey = await alice.createKey();
  bob = await Client.signIn(stack, 'bob');
});

const check = (who: Client, body: unknown) => who.session('/api/skills/check', { method: 'POST', body });
const skillMdFile = (content: string) => ({ filename: 'SKILL.md', content });

/** Everything stored but the checks' own rate windows: the table's items and the content bucket's keys. */
async function stored(): Promise<{ items: string[]; blobs: string[] }> {
  const { Items } = await stack.deps.db.doc.send(new ScanCommand({ TableName: stack.deps.db.table }));
  const out = await stack.deps.s3.send(new ListObjectsV2Command({ Bucket: stack.config.contentBucket }));
  return {
    items: (Items ?? [])
      .filter((item) => item.sk !== 'CHECK')
      .map((item) => `${item.pk} ${item.sk}`)
      .sort(),
    blobs: (out.Contents ?? []).map((o) => o.Key!).sort(),
  };
}

describe('POST /api/skills/check', () => {
  it('answers each conformance problem with its file and line, the listing, the scan and the effects, and stores nothing', async () => {
    const md = ['---', 'name: Broken Skill', 'license: 3', 'metadata:', '  author: someone', '  stars: 5', '---', '# Broken', ''].join('\n');
    const before = await stored();
    const res = await check(alice, { files: [skillMdFile(md), { filename: 'notes.md', content: 'notes\n' }] });
    expect(res.status).toBe(200);
    const raw = await json(res);
    expect(z.strictObject(skillCheckSchema.shape).safeParse(raw).success).toBe(true);
    const answer = skillCheckSchema.parse(raw);
    expect(answer.issues).toEqual([
      { file: 'SKILL.md', path: ['name'], line: 2, message: expect.stringContaining('lower-case letters') },
      { file: 'SKILL.md', path: ['description'], line: 1, message: expect.stringContaining('no description') },
      { file: 'SKILL.md', path: ['license'], line: 3, message: expect.stringContaining('license must be text') },
      { file: 'SKILL.md', path: ['metadata', 'stars'], line: 6, message: expect.stringContaining('quote it') },
    ]);
    // No valid slug yet: nothing to say about which skill the files would make.
    expect(answer.target).toBeUndefined();
    expect(answer.listing).toEqual({ name: 'Broken', dependencies: {} });
    expect(answer.scan).toEqual({ verdict: 'clean', rulesVersion: expect.any(String), findings: [] });
    expect(answer.effects).toEqual({ reads: [], writes: [], network: [], executes: [], asks: [] });
    expect(await stored()).toEqual(before);
  });

  it('answers the effects read in the text, with the file and line each was read on', async () => {
    const files = [skillMdFile(skillMd('effects-checked')), { filename: 'scripts/a.py', content: 'import os\ncat ~/.aws/credentials\n' }];
    const answer = skillCheckSchema.parse(await json(await check(alice, { files })));
    expect(answer.effects.reads).toEqual([
      expect.objectContaining({ class: 'cloud-credentials', target: '~/.aws/credentials', evidence: { file: 'scripts/a.py', line: 2 }, source: 'static' }),
    ]);
  });

  it('places a YAML error on its line', async () => {
    const res = await check(alice, { files: [skillMdFile('---\nname: yaml-broken\ndescription: "open\n---\n')] });
    const answer = skillCheckSchema.parse(await json(res));
    expect(answer.issues).toEqual([expect.objectContaining({ file: 'SKILL.md', line: 3, message: expect.stringContaining('invalid YAML') })]);
  });

  it('reads a conforming folder as a new skill, with its listing as skillpress publish reads it, and a malicious one as malicious rather than refused', async () => {
    const md = '---\nname: upload-checked\ndescription: >\n  Checks uploads\n  before storing.\nmetadata:\n  category: Dev Tools\n---\n# Upload Checked\n';
    const answer = skillCheckSchema.parse(await json(await check(alice, { files: [skillMdFile(md)] })));
    expect(answer).toMatchObject({
      target: { kind: 'skill' },
      listing: { slug: 'upload-checked', name: 'Upload Checked', description: 'Checks uploads before storing.', category: 'dev-tools' },
      issues: [],
      scan: { verdict: 'clean' },
    });

    const before = await stored();
    const refused = await check(alice, { files: [skillMdFile(renamedSkillMd(MALICIOUS_SKILL_MD, 'checked-setup'))] });
    expect(refused.status).toBe(200);
    const malicious = skillCheckSchema.parse(await json(refused));
    expect(malicious.scan.verdict).toBe('malicious');
    expect(malicious.scan.findings).toContainEqual(expect.objectContaining({ rule: 'decode-to-shell', file: 'SKILL.md', line: expect.any(Number) }));
    // Only the check's own rate window moved: no publish slot, no skill, no blob.
    expect(await stored()).toEqual(before);
  });

  it("reads the caller's own slug as a new version, suggesting the next patch or the SKILL.md's metadata.version", async () => {
    const body = skillBody();
    const skill = await json(await withKey(stack, aliceKey, '/api/publish', { body }));
    const next = skillCheckSchema.parse(await json(await check(alice, { files: [skillMdFile(skillMd(skill.slug, '# Again\n'))] })));
    expect(next.target).toEqual({ kind: 'version', skillId: skill.id, currentVersion: '1.0.0', suggestedVersion: '1.0.1', paid: false });

    const declared = `---\nname: ${skill.slug}\ndescription: d\nmetadata:\n  version: 2.0.0\n---\n`;
    const major = skillCheckSchema.parse(await json(await check(alice, { files: [skillMdFile(declared)] })));
    expect(major.target).toMatchObject({ kind: 'version', suggestedVersion: '2.0.0' });

    // Someone else's slug is what publishing it would meet: taken.
    const theirs = await check(bob, { files: [skillMdFile(skillMd(skill.slug))] });
    expect(theirs.status).toBe(409);
    expect((await json(theirs)).error).toMatchObject({ code: 'slug_taken', message: expect.any(String) });
  });

  it("never quotes a paid skill's content in its findings, and quotes a free one's", async () => {
    const files = [skillMdFile(renamedSkillMd(SUSPICIOUS_SKILL_MD, 'checked-installer'))];
    const free = skillCheckSchema.parse(await json(await check(alice, { files })));
    expect(JSON.stringify(free.scan.findings)).toContain(SUSPICIOUS_EXCERPT);
    const paid = skillCheckSchema.parse(await json(await check(alice, { files, paid: true })));
    expect(paid.scan.verdict).toBe('suspicious');
    // Its effects say what and where, not the command as written.
    expect(paid.effects.executes).toEqual([
      expect.objectContaining({ class: 'downloaded-content', target: 'downloaded-content', evidence: { file: 'SKILL.md', line: 8 } }),
    ]);
    expect(JSON.stringify(paid)).not.toContain('get.example.com');

    // A new version of a paid skill is as paid as its skill, whatever the body says.
    const published = await withKey(stack, aliceKey, '/api/publish', {
      body: { name: 'Paid Checked', description: 'd', paid: true, files: [skillMdFile(skillMd('paid-checked'))] },
    });
    expect(published.status).toBe(201);
    const version = await check(alice, { files: [skillMdFile(renamedSkillMd(SUSPICIOUS_SKILL_MD, 'paid-checked'))] });
    const answer = skillCheckSchema.parse(await json(version));
    expect(answer.target).toMatchObject({ kind: 'version', paid: true });
    expect(JSON.stringify(answer)).not.toContain('get.example.com');
  });

  it('refuses a caller without credentials (401), a session write from another origin or a key without publish (403) and no files (400), in the error shape', async () => {
    const body = { files: [skillMdFile(skillMd('anonymous-check'))] };
    const anonymous = await stack.request('/api/skills/check', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(anonymous.status).toBe(401);
    expect((await json(anonymous)).error).toMatchObject({ code: 'unauthenticated', message: expect.any(String) });
    const foreign = await alice.session('/api/skills/check', { method: 'POST', body, headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect((await json(foreign)).error.code).toBe('csrf_rejected');
    // A key that may not publish may not ask either, whether or not the files name a skill.
    const readOnly = (await json(await alice.session('/api/api-keys', { method: 'POST', body: { name: 'reader', scopes: ['read'] } }))).key;
    for (const files of [body.files, [skillMdFile('no front matter')]]) {
      const refused = await withKey(stack, readOnly, '/api/skills/check', { body: { files } });
      expect(refused.status).toBe(403);
      expect((await json(refused)).error.code).toBe('insufficient_scope');
    }
    const empty = await check(alice, { files: [] });
    expect(empty.status).toBe(400);
    expect((await json(empty)).error.code).toBe('invalid_request');
  });

  it('counts against its own rate window, not the publish limit', async () => {
    const res = await withKey(stack, aliceKey, '/api/skills/check', { body: { files: [skillMdFile(skillMd('key-checked'))] } });
    expect(res.status).toBe(200);
    expect([res.headers.get('ratelimit-limit'), res.headers.get('ratelimit-remaining')]).toEqual(['999', expect.stringMatching(/^\d+$/)]);
  });
});

describe('POST /api/skills', () => {
  it("publishes a new skill from a session, as POST /api/publish does from a key, and refuses another origin's", async () => {
    const body = { name: 'Session Upload', description: 'Uploaded from the dashboard', files: [skillMdFile(skillMd('session-upload'))] };
    const foreign = await alice.session('/api/skills', { method: 'POST', body, headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    const res = await alice.session('/api/skills', { method: 'POST', body });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/api/registry/session-upload');
    expect(await json(res)).toMatchObject({ slug: 'session-upload', author: 'alice', currentVersion: '1.0.0', scan: { verdict: 'clean' } });
    expect((await alice.session('/api/me/skills')).status).toBe(200);
    const mine = await json(await alice.session('/api/me/skills'));
    expect(JSON.stringify(mine)).toContain('session-upload');
  });
});
