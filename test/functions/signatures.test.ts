import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicKey } from 'node:crypto';
import { createPrivateKey, sign } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  endorsementMessage,
  keyIdOf,
  keysTrustedFrom,
  parseRegistryKeys,
  type RegistryKey,
  SIGNATURE_FORMAT,
  signedMessage,
  verifyVersionSignature,
} from '#core/version-signature';
import { newKeyPem } from '#functions/platform/signer';
import { Rebuilder } from '#functions/rebuild/rebuilder';
import { signatureKey } from '#functions/store/keys';
import { startFakeKms, type FakeKms } from '../support/fake-kms.ts';
import { Client, createTestStack, json, skillBody, skillFile, type TestStack, withKey } from '../support/stack.ts';

/** The registry signs every version (docs/api.md §11.11): at publish, and in the rebuild for what is unsigned. */

async function keysOf(stack: TestStack): Promise<RegistryKey[]> {
  const res = await stack.request('/.well-known/skillpress/keys.json');
  expect(res.status).toBe(200);
  return parseRegistryKeys(await res.json())!;
}

async function versionsOf(stack: TestStack, slug: string) {
  const res = await stack.request(`/api/registry/${slug}/versions`);
  expect(res.status).toBe(200);
  return (await json<{ versions: { version: string; integrity: string; signature?: unknown }[] }>(res)).versions;
}

function expectSigned(keys: RegistryKey[], slug: string, versions: { version: string; integrity: string; signature?: unknown }[]) {
  for (const v of versions)
    expect(verifyVersionSignature(keys, { slug, ...v }, v.signature, new Date(), SIGNATURE_FORMAT), `${slug}@${v.version}`).toBeUndefined();
}

async function publish(stack: TestStack, key: string, overrides: Record<string, unknown> = {}) {
  const res = await withKey(stack, key, '/api/publish', { body: skillBody(overrides) });
  expect(res.status).toBe(201);
  return json<{ id: string; slug: string }>(res);
}

describe('with a key held by the process (a file under DATA_DIR with npm start)', () => {
  let stack: TestStack;
  let key: string;
  beforeAll(async () => {
    stack = await createTestStack();
    key = await (await Client.signIn(stack, 'signer-alice')).createKey();
  });
  afterAll(() => stack.runtime.close());

  it('signs each version published, over its facts in format 3, with a key keys.json lists', async () => {
    const skill = await publish(stack, key);
    const res = await withKey(stack, key, `/api/skills/${skill.id}/versions`, { body: { version: '1.1.0', files: [skillFile(skill.slug, '# 1.1')] } });
    expect(res.status).toBe(201);
    await stack.idle();
    const keys = await keysOf(stack);
    expect(keys).toHaveLength(1);
    expect(keys[0]!.keyid).toBe(keyIdOf(createPublicKey(keys[0]!.publicKey).export({ type: 'spki', format: 'der' })));
    const versions = await versionsOf(stack, skill.slug);
    expect(versions.map((v) => v.version)).toEqual(['1.1.0', '1.0.0']);
    expectSigned(keys, skill.slug, versions);
    const registry = await json(await stack.request(`/api/registry/${skill.slug}`));
    expectSigned(keys, skill.slug, registry.versions);
    // Another version's message does not verify with this signature.
    const [newer, older] = versions;
    expect(verifyVersionSignature(keys, { slug: skill.slug, ...older! }, newer!.signature, new Date())).toBe('mismatch');
  });

  it('signs a version again at the rebuild after its yank, or the undoing of it, so the signature covers the yank', async () => {
    const skill = await publish(stack, key);
    const res = await withKey(stack, key, `/api/skills/${skill.id}/versions`, { body: { version: '1.1.0', files: [skillFile(skill.slug, '# 1.1')] } });
    expect(res.status).toBe(201);
    await stack.idle();
    const before = (await versionsOf(stack, skill.slug)).find((v) => v.version === '1.0.0')!;
    expect((await withKey(stack, key, `/api/skills/${skill.id}/versions/1.0.0/yank`, { body: { reason: 'broken' } })).status).toBe(200);
    await stack.idle();
    const keys = await keysOf(stack);
    const yanked = (await versionsOf(stack, skill.slug)).find((v) => v.version === '1.0.0')! as { yanked?: boolean; signature?: unknown };
    expect(yanked.yanked).toBe(true);
    expectSigned(keys, skill.slug, await versionsOf(stack, skill.slug));
    // The signature from before the yank no longer covers the version as listed.
    expect(verifyVersionSignature(keys, { slug: skill.slug, ...yanked } as never, before.signature, new Date())).toBe('mismatch');

    expect((await withKey(stack, key, `/api/skills/${skill.id}/versions/1.0.0/yank`, { method: 'DELETE' })).status).toBe(200);
    await stack.idle();
    expectSigned(keys, skill.slug, await versionsOf(stack, skill.slug));
  });

  it('covers behaviour and effects in format 3, so a mirror can neither pass a version off as cleared nor drop its effects; format 2 still verifies', async () => {
    const skill = await publish(stack, key);
    await stack.idle();
    const keys = await keysOf(stack);
    const [entry] = (await versionsOf(stack, skill.slug)) as {
      version: string;
      integrity: string;
      signature: { keyid: string; sig: string; format?: number };
      behaviour?: 'cleared';
    }[];
    expect(entry!.signature.format).toBe(3);
    expect(entry!.behaviour).toBe('cleared');
    const facts = { slug: skill.slug, ...entry! };
    expect(verifyVersionSignature(keys, facts, entry!.signature, new Date(), SIGNATURE_FORMAT)).toBeUndefined();
    expect(verifyVersionSignature(keys, { ...facts, behaviour: 'pending' }, entry!.signature, new Date())).toBe('mismatch');
    expect(verifyVersionSignature(keys, { ...facts, effects: undefined }, entry!.signature, new Date())).toBe('mismatch');
    const older = { ...(await stack.deps.signer.sign(signedMessage(facts, 2))), format: 2 };
    expect(verifyVersionSignature(keys, facts, older, new Date(), 2)).toBeUndefined();
    expect(verifyVersionSignature(keys, facts, older, new Date(), SIGNATURE_FORMAT)).toBe('old_format');
  });

  it('lists the format it signs in beside the keys', async () => {
    const res = await stack.request('/.well-known/skillpress/keys.json');
    expect((await json<{ signatureFormat: number }>(res)).signatureFormat).toBe(SIGNATURE_FORMAT);
  });

  it('signs, in the rebuild, a version stored before signatures, and replaces a signature over other content', async () => {
    const skill = await publish(stack, key);
    await stack.idle();
    const { db } = stack.deps;
    await db.doc.send(new DeleteCommand({ TableName: db.table, Key: signatureKey(skill.id, '1.0.0') }));
    await new Rebuilder(stack.deps).rebuildAll();
    expectSigned(await keysOf(stack), skill.slug, await versionsOf(stack, skill.slug));

    // A signature left by a publish that failed after signing names other content: it is never served.
    const stale = await stack.deps.signer.sign(`${skill.slug}@1.0.0:sha256-other`);
    await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...signatureKey(skill.id, '1.0.0'), ...stale, integrity: 'sha256-other' } }));
    await new Rebuilder(stack.deps).rebuild([skill.id]);
    expectSigned(await keysOf(stack), skill.slug, await versionsOf(stack, skill.slug));
  });

  it('signs a private skill too, for the members who read its registry documents through the API', async () => {
    const bob = await Client.signIn(stack, 'signer-bob');
    const login = `sigorg${Date.now().toString(36)}`;
    expect((await bob.session('/api/orgs', { method: 'POST', body: { login, name: 'Signers' } })).status).toBe(201);
    const bobKey = await bob.createKey();
    const skill = await publish(stack, bobKey, { owner: login, visibility: 'private' });
    await stack.idle();
    const res = await withKey(stack, bobKey, `/api/me/registry/${skill.slug}`, { method: 'GET' });
    expect(res.status).toBe(200);
    expectSigned(await keysOf(stack), skill.slug, (await json(res)).versions);
  });
});

describe('a rotation', () => {
  it("lists the previous key's endorsement on the active key, which a client that pinned the previous key follows", async () => {
    const previous = createPrivateKey(newKeyPem());
    const active = newKeyPem();
    const der = createPublicKey(createPrivateKey(active)).export({ type: 'spki', format: 'der' });
    const sig = sign('sha256', Buffer.from(endorsementMessage(keyIdOf(der))), { key: previous, dsaEncoding: 'der' }).toString('base64');
    const previousDer = createPublicKey(previous).export({ type: 'spki', format: 'der' });
    const endorsement = { keyid: keyIdOf(previousDer), sig };
    const keyFile = join(mkdtempSync(join(tmpdir(), 'skillpress-rotation-')), 'signing-key.pem');
    writeFileSync(keyFile, active, { mode: 0o600 });
    const stack = await createTestStack({}, { SKILLPRESS_SIGNING_KEY_FILE: keyFile, SKILLPRESS_SIGNING_KEY_ENDORSEMENT: JSON.stringify(endorsement) });
    try {
      const key = await (await Client.signIn(stack, 'rotating-dan')).createKey();
      await publish(stack, key);
      await stack.idle();
      const keys = await keysOf(stack);
      expect(keys[0]!.endorsedBy).toEqual(endorsement);
      const pinned = { keyid: endorsement.keyid, publicKey: createPublicKey(previous).export({ type: 'spki', format: 'pem' }).toString() };
      expect(keys[0]!.keyid).toBe(keyIdOf(der));
      expect(keysTrustedFrom(keys, [pinned])).toEqual([keys[0]]);
      // A client that pinned some other key follows nothing.
      expect(keysTrustedFrom(keys, [{ keyid: keyIdOf(createPublicKey(createPrivateKey(newKeyPem())).export({ type: 'spki', format: 'der' })) }])).toEqual([]);
    } finally {
      await stack.runtime.close();
    }
  });
});

describe('with a KMS key (AWS), through the real KMS client against a fake KMS', () => {
  let kms: FakeKms;
  let stack: TestStack;
  let key: string;
  beforeAll(async () => {
    kms = await startFakeKms();
    stack = await createTestStack({}, { SIGNING_KMS_KEY_ID: kms.keyArn, KMS_ENDPOINT: kms.endpoint });
    key = await (await Client.signIn(stack, 'kms-carol')).createKey();
  });
  afterAll(async () => {
    await stack.runtime.close();
    await kms.close();
  });

  it('signs with KMS and lists the KMS key, whose private half never leaves it', async () => {
    const skill = await publish(stack, key);
    await stack.idle();
    const keys = await keysOf(stack);
    expect(keys.map((k) => k.alg)).toEqual(['ECDSA_P256_SHA256']);
    expectSigned(keys, skill.slug, await versionsOf(stack, skill.slug));
    expect(kms.calls).toContain('Sign');
    expect(kms.calls).toContain('GetPublicKey');
  });

  it('publishes while KMS refuses, and the rebuild signs the version once KMS answers again', async () => {
    const before = kms.calls.length;
    // The SDK tries three times: every try of the publish's Sign is refused.
    kms.failNext(3);
    const skill = await publish(stack, key);
    expect(kms.calls.slice(before)).toEqual(['Sign', 'Sign', 'Sign']);
    await stack.idle();
    expectSigned(await keysOf(stack), skill.slug, await versionsOf(stack, skill.slug));
  });
});
