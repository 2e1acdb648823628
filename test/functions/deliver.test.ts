import fc from 'fast-check';
import { bundleBytes, bundleIntegrity, decodeFile, deliveredBundleIntegrity } from '#core/bundle';
import { beforeAll, describe, expect, it } from 'vitest';
import { OBSERVED_WITHIN_MS, untilObserved } from '../support/behaviour.ts';
import { analytics, authorStack, deliver, publish } from '../support/delivery.ts';
import { type Client, json, skillFile, type TestStack, withKey } from '../support/stack.ts';

let stack: TestStack;
let alice: Client;
let aliceKey: string;

beforeAll(async () => {
  ({ stack, alice, aliceKey } = await authorStack());
});

const addVersion = async (id: string, version: string, files: unknown[]) => {
  const res = await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: { version, files } });
  expect(res.status).toBe(201);
};

describe('GET /api/deliver/<skillId> for a free skill', () => {
  it('delivers the current version without credentials, uncacheable', async () => {
    const files = [skillFile('hello-delivery', '# Hello'), { filename: 'a/notes.md', content: 'héllo' }];
    const skill = await publish(stack, aliceKey, { slug: 'hello-delivery', files });
    const res = await deliver(stack, skill.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(await json(res)).toEqual({ skillId: skill.id, slug: skill.slug, version: '1.0.0', files });
  });

  it('delivers the newest version by default and any older one with ?version=, so old installs keep working', async () => {
    const md = (body: string) => skillFile('three-versions', body);
    const skill = await publish(stack, aliceKey, { slug: 'three-versions', files: [md('one')] });
    await addVersion(skill.id, '1.1.0', [md('two'), { filename: 'extra.md', content: 'x' }]);
    await addVersion(skill.id, '2.0.0-rc.1', [md('pre')]);
    const current = await json(await deliver(stack, skill.id));
    expect(current.version).toBe('1.1.0');
    expect(current.files).toEqual([md('two'), { filename: 'extra.md', content: 'x' }]);
    const old = await json(await deliver(stack, skill.id, { version: '1.0.0' }));
    expect(old).toMatchObject({ version: '1.0.0', files: [md('one')] });
    const pre = await json(await deliver(stack, skill.id, { version: '2.0.0-rc.1' }));
    expect(pre.files).toEqual([md('pre')]);
  });

  it('delivers binary content as base64 and repeated content once per file', async () => {
    const bytes = Buffer.from([0xff, 0xd8, 0x00, 0x10, 0x80]);
    const md = skillFile('binary-delivery', 'same');
    const sent = [md, { filename: 'copy.md', content: md.content }, { filename: 'logo.jpg', content: bytes.toString('base64'), encoding: 'base64' }];
    const skill = await publish(stack, aliceKey, { slug: 'binary-delivery', files: sent });
    const { files } = await json(await deliver(stack, skill.id));
    expect(files).toEqual(sent);
  });

  it(
    "answers in canonical form: the body begins with the version's bundle, byte for byte",
    async () => {
      const files = [
        skillFile('canonical-delivery', '# Hello\n"quoted" and \\ and é\n'),
        { filename: 'a/logo.png', content: Buffer.from([0x89, 0x50, 0x00, 0xff]).toString('base64'), encoding: 'base64' as const },
        { filename: 'run.sh', content: '#!/bin/sh\n', executable: true },
      ];
      const skill = await publish(stack, aliceKey, { slug: 'canonical-delivery', files });
      // Its script runs in the sandbox before it is delivered by default.
      await untilObserved(stack, aliceKey, skill.id);
      const body = Buffer.from(await (await deliver(stack, skill.id)).arrayBuffer());
      const published = files.map((f) => decodeFile(f)!);
      expect(body.toString().startsWith(bundleBytes(published).slice(0, -1))).toBe(true);
      expect(deliveredBundleIntegrity(body, { skillId: skill.id, slug: skill.slug, version: '1.0.0' })).toBe(bundleIntegrity(published));
    },
    OBSERVED_WITHIN_MS,
  );

  it('answers 404 not_found for an unknown skill, an unknown version and an absurdly long id', async () => {
    const skill = await publish(stack, aliceKey);
    for (const [id, query] of [
      ['no-such-skill', {}],
      [skill.id, { version: '9.9.9' }],
      ['x'.repeat(5000), {}],
      ['x'.repeat(5000), { version: '1.0.0' }],
    ] as const) {
      const res = await deliver(stack, id, query);
      expect(res.status).toBe(404);
      expect((await json(res)).error.code).toBe('not_found');
    }
    expect((await analytics(alice, skill.id)).total).toBe(0);
  });

  it('takes cli, web and api as the source, and api when absent', async () => {
    const skill = await publish(stack, aliceKey);
    for (const source of ['cli', 'web', 'api']) expect((await deliver(stack, skill.id, { source })).status).toBe(200);
    expect((await deliver(stack, skill.id)).status).toBe(200);
    expect((await analytics(alice, skill.id)).bySource).toEqual({ cli: 1, web: 1, api: 2 });
  });

  it.each([
    ['an unknown source', 'source=npm'],
    ['an upper-case source', 'source=CLI'],
    ['an empty source', 'source='],
    ['a repeated source', 'source=cli&source=web'],
    ['a version with a v', 'version=v1.0.0'],
    ['a version with build metadata', 'version=1.0.0%2Bbuild'],
    ['a range instead of a version', 'version=%5E1.0.0'],
    ['an oversized version', `version=${'1'.repeat(300)}`],
    ['an oversized token', `token=${'a'.repeat(600)}`],
    ['an empty token', 'token='],
  ])('refuses %s with 400 invalid_request and counts nothing', async (_, query) => {
    const skill = await publish(stack, aliceKey);
    const res = await stack.request(`/api/deliver/${skill.id}?${query}`);
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error.code).toBe('invalid_request');
    expect(JSON.stringify(body)).not.toContain('a'.repeat(100));
    expect((await analytics(alice, skill.id)).total).toBe(0);
  });

  it('does not examine credentials for a free skill: a bogus token still gets the content', async () => {
    const skill = await publish(stack, aliceKey);
    expect((await deliver(stack, skill.id, { token: 'dt_bogus' })).status).toBe(200);
  });

  it('answers any query string with a JSON 200, 400 or 404, never a 500', async () => {
    const skill = await publish(stack, aliceKey);
    const key = fc.constantFrom('version', 'source', 'token', 'other');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(key, fc.string({ unit: 'binary', maxLength: 40 })), { maxLength: 4 }), fc.boolean(), async (pairs, rawEncoding) => {
        const qs = pairs.map(([k, v]) => `${k}=${rawEncoding ? v.replace(/[#\s]/g, '%') : encodeURIComponent(v)}`).join('&');
        const res = await stack.request(`/api/deliver/${skill.id}?${qs}`);
        expect([200, 400, 404]).toContain(res.status);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        await res.json();
      }),
      { numRuns: 60 },
    );
  });
});

describe('the OpenAPI document', () => {
  it('describes delivery, download tokens, grants and analytics', async () => {
    const doc = await json(await stack.request('/api/openapi.json'));
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/deliver/{skillId}',
        '/api/skills/{id}/download-tokens',
        '/api/skills/{id}/download-tokens/{tokenId}',
        '/api/skills/{id}/grants',
        '/api/skills/{id}/grants/{login}',
        '/api/analytics/{skillId}',
      ]),
    );
    expect(doc.paths['/api/deliver/{skillId}'].get.responses).toHaveProperty('402');
    expect(doc.paths['/api/analytics/{skillId}'].get.security).toEqual([{ session: [] }]);
  });
});
