import { randomBytes } from 'node:crypto';
import { DeleteObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { deliveredBundleIntegrity, sha256Base64 } from '#core/bundle';
import { bundleKey } from '#core/static-paths';
import { preparedDeliveryKey } from '#functions/content/delivery-links';
import { analytics, deliver, issueToken, publish } from '../support/delivery.ts';
import { Client, createTestStack, json, skillFile, type TestStack, withKey } from '../support/stack.ts';

/**
 * A delivery too large for a response (docs/api.md §7.6) is a 303, counted once as any delivery:
 * to the version's bundle for free public content, else to a pre-signed link, good for a
 * minute, of the delivery kept in the private content bucket. The limit is lowered here so the
 * versions stay small; the path is the one a 6 MB version takes (test/cli/large-deliveries.test.ts
 * installs real ones through `npm start` and the CLI).
 */

const LIMIT = 4096;
let stack: TestStack;
let alice: Client;
let aliceKey: string;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_INLINE_DELIVERY_BYTES: String(LIMIT) });
  alice = await Client.signIn(stack, 'alice');
  aliceKey = await alice.createKey();
});

/** A version whose delivery is over the lowered limit: a binary file, sent (and delivered) as base64. */
function largeFiles(slug: string) {
  return [skillFile(slug, '# Large\n'), { filename: 'assets/blob.bin', content: randomBytes(6000).toString('base64'), encoding: 'base64' }];
}

async function publishLarge(overrides: Record<string, unknown> = {}, key = aliceKey) {
  const slug = `large-${randomBytes(4).toString('hex')}`;
  const skill = await publish(stack, key, { slug, files: largeFiles(slug), ...overrides });
  await stack.idle();
  const registry = await json(
    await stack.request(overrides.visibility === 'private' ? `/api/me/registry/${slug}` : `/api/registry/${slug}`, {
      headers: { authorization: `Bearer ${key}` },
    }),
  );
  return { ...skill, integrity: registry.versions[0].integrity as string };
}

async function contentKeys(prefix: string): Promise<string[]> {
  const listed = await stack.deps.s3.send(new ListObjectsV2Command({ Bucket: stack.config.contentBucket, Prefix: prefix }));
  return (listed.Contents ?? []).map((o) => o.Key!);
}

describe('large deliveries', () => {
  it('sends a free skill to its immutable bundle, counted once, and the bundle is the published one', async () => {
    const skill = await publishLarge();
    const res = await deliver(stack, skill.id, { source: 'cli' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/bundles/${skill.slug}/1.0.0.json`);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const bundle = new Uint8Array(await (await stack.request(res.headers.get('location')!)).arrayBuffer());
    expect(`sha256-${sha256Base64(bundle)}`).toBe(skill.integrity);
    await stack.idle();
    expect((await analytics(alice, skill.id)).bySource.cli).toBe(1);
    // Nothing was copied into the content bucket for it: the site already serves these bytes.
    expect(await contentKeys(`deliveries/${skill.id}/`)).toEqual([]);
  });

  it('links a free version whose bundle is not written yet as it links paid content', async () => {
    const skill = await publishLarge();
    await stack.deps.s3.send(new DeleteObjectCommand({ Bucket: stack.config.staticBucket, Key: bundleKey(skill.slug, '1.0.0') }));
    const res = await deliver(stack, skill.id);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(location.pathname).toBe(`/${stack.config.contentBucket}/${preparedDeliveryKey(skill.id, '1.0.0')}`);
    const body = new Uint8Array(await (await fetch(location)).arrayBuffer());
    expect(deliveredBundleIntegrity(body, { skillId: skill.id, slug: skill.slug, version: '1.0.0' })).toBe(skill.integrity);
  });

  it('links paid content for minutes from the private bucket, only for an entitled caller, spending the token and counting once', async () => {
    const skill = await publishLarge({ paid: true, price: { amount: 900, currency: 'USD' } });
    expect((await deliver(stack, skill.id)).status).toBe(402);
    const badToken = await deliver(stack, skill.id, { token: 'dt_not-a-token' });
    expect(badToken.status).toBe(401);
    expect(badToken.headers.get('location')).toBeNull();
    // Refused callers leave nothing behind, not even the copy a link would point at.
    expect(await contentKeys(`deliveries/${skill.id}/`)).toEqual([]);

    const { token } = await issueToken(alice, skill.id, { maxUses: 1 });
    const head = await stack.request(`/api/deliver/${skill.id}?token=${token}`, { method: 'HEAD' });
    expect(head.status).toBe(303); // a HEAD spends nothing and counts nothing
    const res = await deliver(stack, skill.id, { token, source: 'cli' });
    expect(res.status).toBe(303);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const location = new URL(res.headers.get('location')!);
    expect(location.origin).not.toBe('http://localhost'); // not the site: the content bucket, pre-signed
    expect(location.pathname).toBe(`/${stack.config.contentBucket}/${preparedDeliveryKey(skill.id, '1.0.0')}`);
    expect(location.searchParams.get('X-Amz-Expires')).toBe('60');
    expect(location.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(location.search).not.toContain(token);
    const body = new Uint8Array(await (await fetch(location)).arrayBuffer());
    expect(deliveredBundleIntegrity(body, { skillId: skill.id, slug: skill.slug, version: '1.0.0' })).toBe(skill.integrity);
    // Signed 61 s ago, the same link has expired (the emulator checks the expiry, as S3 does; not the signature).
    const stale = new URL(location);
    stale.searchParams.set('X-Amz-Date', new Date(Date.now() - 61_000).toISOString().replace(/[-:]|\.\d+/g, ''));
    expect((await fetch(stale)).status).toBe(403);

    expect((await deliver(stack, skill.id, { token })).status).toBe(401); // its one use is spent
    await stack.idle();
    expect((await analytics(alice, skill.id)).total).toBe(1);
    // Paid content never reaches the site's bucket.
    const staticKeys = await stack.deps.s3.send(new ListObjectsV2Command({ Bucket: stack.config.staticBucket, Prefix: `bundles/${skill.slug}/` }));
    expect(staticKeys.Contents ?? []).toEqual([]);
  });

  it('gives a HEAD no link to content only a link reaches, however often: the GET that spends the use is the only way to one', async () => {
    const skill = await publishLarge({ paid: true, price: { amount: 900, currency: 'USD' } });
    const { token } = await issueToken(alice, skill.id, { maxUses: 1 });
    const head = () => stack.request(`/api/deliver/${skill.id}?token=${token}`, { method: 'HEAD' });
    for (let i = 0; i < 3; i++) {
      const res = await head();
      expect(res.status).toBe(303); // the status a GET would answer, without where
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('cache-control')).toBe('private, no-store');
    }
    expect(await contentKeys(`deliveries/${skill.id}/`)).toEqual([]);
    const res = await deliver(stack, skill.id, { token });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toContain('X-Amz-Signature=');
    // Spent: neither a HEAD nor a GET gets anything more.
    expect((await head()).status).toBe(401);
    expect((await deliver(stack, skill.id, { token })).status).toBe(401);
    // A free version whose bundle the site lacks is linked as paid content is: not on a HEAD either.
    const free = await publishLarge();
    await stack.deps.s3.send(new DeleteObjectCommand({ Bucket: stack.config.staticBucket, Key: bundleKey(free.slug, '1.0.0') }));
    const freeHead = await stack.request(`/api/deliver/${free.id}`, { method: 'HEAD' });
    expect([freeHead.status, freeHead.headers.get('location')]).toEqual([303, null]);
  });

  it("links a private skill's large delivery for a member's key only; anyone else gets the 404 of nothing", async () => {
    const olive = await Client.signIn(stack, 'olive');
    expect((await olive.session('/api/orgs', { method: 'POST', body: { login: 'bigco', name: 'Big Co' } })).status).toBe(201);
    const oliveKey = await olive.createKey();
    const skill = await publishLarge({ owner: 'bigco', visibility: 'private' }, oliveKey);
    const withoutKey = await deliver(stack, skill.id);
    expect(withoutKey.status).toBe(404);
    expect((await withKey(stack, aliceKey, `/api/deliver/${skill.id}`, { method: 'GET' })).status).toBe(404);
    expect(await contentKeys(`deliveries/${skill.id}/`)).toEqual([]);
    const res = await withKey(stack, oliveKey, `/api/deliver/${skill.id}`, { method: 'GET' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(location.pathname).toBe(`/${stack.config.contentBucket}/${preparedDeliveryKey(skill.id, '1.0.0')}`);
    const body = new Uint8Array(await (await fetch(location)).arrayBuffer());
    expect(JSON.parse(Buffer.from(body).toString('utf8')).slug).toBe(skill.slug);
  });

  it("links ClawHub's download of a ZIP too large for a response, made and linked before it is counted", async () => {
    const skill = await publishLarge();
    const head = await stack.request(`/api/v1/download?slug=${skill.slug}`, { method: 'HEAD' });
    expect([head.status, head.headers.get('location')]).toEqual([303, null]); // no link without the GET that counts
    const res = await stack.request(`/api/v1/download?slug=${skill.slug}&version=1.0.0`);
    expect(res.status).toBe(303);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const location = new URL(res.headers.get('location')!);
    expect(location.pathname).toBe(`/${stack.config.contentBucket}/${preparedDeliveryKey(skill.id, '1.0.0', 'zip')}`);
    const fetched = await fetch(location);
    expect(fetched.headers.get('content-type')).toBe('application/zip');
    const files = unzipSync(new Uint8Array(await fetched.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual(['SKILL.md', 'assets/blob.bin']);
    await stack.idle();
    expect((await analytics(alice, skill.id)).byClient.clawhub).toBe(1);
  });

  it('answers a delivery under the limit in the response, as before', async () => {
    const slug = `small-${randomBytes(4).toString('hex')}`;
    const skill = await publish(stack, aliceKey, { slug, files: [skillFile(slug, '# Small\n')] });
    const res = await deliver(stack, skill.id);
    expect(res.status).toBe(200);
    expect((await json(res)).slug).toBe(slug);
  });

  it('counts the escaping a body needs inside Lambda’s response: quotes and backslashes count twice', async () => {
    const slug = `quoted-${randomBytes(4).toString('hex')}`;
    // About 2,600 bytes as delivered, over 4,096 once each " and \ is escaped again.
    const quoted = '"\\'.repeat(700);
    const skill = await publish(stack, aliceKey, { slug, files: [skillFile(slug, '# Quoted\n'), { filename: 'quotes.txt', content: quoted }] });
    await stack.idle();
    const res = await deliver(stack, skill.id);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/bundles/${slug}/1.0.0.json`);
    expect((await withKey(stack, aliceKey, `/api/deliver/${skill.id}`, { method: 'GET' })).status).toBe(303);
  });
});
