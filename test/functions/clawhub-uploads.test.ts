import { createHash } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limits } from '#core/limits';
import { sweepExpiredContent } from '#functions/content/expiring-content';
import { SENT_AHEAD_PREFIX, sentAheadKey } from '#functions/content/sent-ahead';
import { configFromEnv } from '#functions/platform/config';
import { Client, createTestStack, skillMd, type TestStack, withKey } from '../support/stack.ts';

/**
 * What a ClawHub client sends ahead of a publish (docs/api.md §14.3) is bounded and expires: an
 * account holds so many files and bytes announced and not yet published (lowered here, so the
 * bounds are reached in a few requests), kept apart from the content store and deleted a day
 * after they arrive, published or not.
 */

const QUOTA = { files: 12, bytes: 64 * 1024 };
let stack: TestStack;

beforeAll(async () => {
  stack = await createTestStack(
    {},
    { SKILLPRESS_UPLOAD_QUOTA_FILES: String(QUOTA.files), SKILLPRESS_UPLOAD_QUOTA_BYTES: String(QUOTA.bytes), SKILLPRESS_PUBLISH_LIMIT: '1000' },
  );
});
afterAll(() => stack.runtime.close());

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
const keyOf = async (login: string) => (await Client.signIn(stack, login)).createKey();

const announce = (key: string, size: number, digest: string, path = 'notes.txt') =>
  withKey(stack, key, '/api/v1/skills/-/upload-url', { body: { path, size, sha256: digest } });

/** Announces and sends `text`, as clawhub 0.23 does; the file entry a publish then names. */
async function sendAhead(key: string, path: string, text: string) {
  const digest = sha256(text);
  const announced = await announce(key, Buffer.byteLength(text), digest, path);
  expect(announced.status, await announced.clone().text()).toBe(200);
  const { uploadUrl, uploadTicket } = (await announced.json()) as { uploadUrl: string; uploadTicket: string };
  const url = new URL(uploadUrl);
  const sent = await withKey(stack, key, url.pathname + url.search, { body: text, headers: { 'content-type': 'text/plain' } });
  expect(sent.status).toBe(200);
  return { path, size: Buffer.byteLength(text), sha256: digest, storageId: digest, uploadTicket };
}

const publishSent = (key: string, slug: string, files: unknown[]) =>
  withKey(stack, key, '/api/v1/skills', { body: { slug, displayName: slug, version: '1.0.0', changelog: '', files } });

async function contentKeys(prefix: string): Promise<string[]> {
  const listed = await stack.deps.s3.send(new ListObjectsV2Command({ Bucket: stack.config.contentBucket, Prefix: prefix }));
  return (listed.Contents ?? []).map((o) => o.Key!);
}

describe('files sent ahead of a ClawHub publish', () => {
  it('are bounded at 400 files and 10 MiB an account, each file at 1 MiB, unless a test lowers the bounds', () => {
    expect(configFromEnv({}).uploadQuota).toEqual({ files: 400, bytes: 10 * 1024 * 1024 });
    expect(limits.clawhubUploads.ticketSeconds).toBe(3600);
    expect(limits.fileBytes).toBe(1024 * 1024);
  });

  it("are refused past the account's bytes, with when to retry; the same bytes again take no room; other accounts are not held up", async () => {
    const key = await keyOf('bytes-bound');
    const quarter = QUOTA.bytes / 4;
    for (let i = 0; i < 4; i++) expect((await announce(key, quarter, sha256(`quarter ${i}`))).status).toBe(200);
    const over = await announce(key, 1, sha256('one byte more'));
    expect(over.status).toBe(429);
    expect(over.headers.get('x-error-code')).toBe('rate_limited'); // ClawHub's errors are text, the code in a header
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(limits.clawhubUploads.ticketSeconds - 120);
    expect((await announce(key, quarter, sha256('quarter 0'))).status).toBe(200);
    expect((await announce(await keyOf('bytes-other'), quarter, sha256('quarter 0'))).status).toBe(200);
  });

  it("are refused past the account's files: of concurrent announcements, exactly as many as the bound get a ticket", async () => {
    const key = await keyOf('files-bound');
    const answers = await Promise.all(Array.from({ length: QUOTA.files + 5 }, (_, i) => announce(key, 1, sha256(`small ${i}`))));
    expect(answers.filter((res) => res.status === 200)).toHaveLength(QUOTA.files);
    expect(answers.filter((res) => res.status === 429)).toHaveLength(5);
  });

  it('get their room back when a publish takes them', async () => {
    const key = await keyOf('room-again');
    const slug = 'claw-room-again';
    const skill = await sendAhead(key, 'SKILL.md', skillMd(slug, 'Room again'));
    const filler = await sendAhead(key, 'notes.md', 'a'.repeat(QUOTA.bytes - skill.size - 100));
    expect((await announce(key, 200, sha256('no room'))).status).toBe(429);
    const published = await publishSent(key, slug, [skill, filler]);
    expect(published.status, await published.clone().text()).toBe(201);
    expect((await announce(key, 200, sha256('no room'))).status).toBe(200);
  });

  it('are kept apart from the content store, and deleted a day after they arrive, published or not', async () => {
    const key = await keyOf('kept-apart');
    const slug = 'claw-kept-apart';
    const file = await sendAhead(key, 'SKILL.md', skillMd(slug, 'Sent, not published'));
    expect(await contentKeys(`blobs/${file.sha256.slice(0, 2)}/${file.sha256}`)).toEqual([]);
    expect(await contentKeys(sentAheadKey(file.sha256))).toEqual([sentAheadKey(file.sha256)]);
    const published = await contentKeys('blobs/');
    // The bucket's lifecycle rule on AWS, the sweep under npm start: a day on, what was sent is gone.
    const dayLater = new Date(Date.now() + limits.clawhubUploads.keptDays * 24 * 60 * 60 * 1000 + 1000);
    expect(await sweepExpiredContent(stack.deps.s3, stack.config.contentBucket, dayLater)).toBeGreaterThanOrEqual(1);
    expect(await contentKeys(SENT_AHEAD_PREFIX)).toEqual([]);
    // A publish naming it now is refused (send it again), and the published content was left alone.
    const refused = await publishSent(key, slug, [file]);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('was not uploaded with this ticket');
    expect(published.length).toBeGreaterThan(0);
    expect(await contentKeys('blobs/')).toEqual(published);
  });
});
