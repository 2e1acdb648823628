import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicKey } from 'node:crypto';
import { keyIdOf, parseRegistryKeys, type RegistryKey, verifyVersionSignature } from '#core/version-signature';
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
  for (const v of versions) expect(verifyVersionSignature(keys, { slug, ...v }, v.signature, new Date()), `${slug}@${v.version}`).toBeUndefined();
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

  it('signs each version published, over <slug>@<version>:<integrity>, with a key keys.json lists', async () => {
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
