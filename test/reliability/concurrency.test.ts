import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { listVersions } from '#functions/store/skills';
import { analytics, authorStack, deliver, issueToken, publish } from '../support/delivery.ts';
import { Client, createTestStack, json, skillBody, skillFile, withKey } from '../support/stack.ts';
import { scanItems } from './support/store.ts';

/**
 * Races: many requests at once against one skill, one author's rate limit or one token. The
 * conditional writes of the store must admit exactly what the rules allow, and the counts must
 * come out exact.
 */

const statuses = (responses: Response[]) => responses.map((r) => r.status).sort();
const tally = (list: (number | string)[]) => Object.fromEntries([...new Set(list)].map((v) => [v, list.filter((x) => x === v).length]));

describe('the same version published 32 times at once', () => {
  it('answers exactly one 201 and 31 × 409 version_exists, and stores it once', async () => {
    const { stack, aliceKey } = await authorStack();
    const { id, slug } = await publish(stack, aliceKey);
    const responses = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        withKey(stack, aliceKey, `/api/skills/${id}/versions`, {
          body: { version: '1.1.0', changelog: `racer ${i}`, files: [skillFile(slug, `# racer ${i}`)] },
        }),
      ),
    );
    expect(tally(statuses(responses))).toEqual({ 201: 1, 409: 31 });
    for (const res of responses.filter((r) => r.status === 409)) expect((await json(res)).error.code).toBe('version_exists');
    const winner = await json(responses.find((r) => r.status === 201)!);
    const stored = (await listVersions(stack.deps.db, id)).filter((v) => v.version === '1.1.0');
    expect(stored.map((v) => v.changelog)).toEqual([winner.changelog]);
    await stack.idle();
    const registry = await json(await stack.request(`/api/registry/${slug}/versions`));
    expect(registry.versions.filter((v: { version: string }) => v.version === '1.1.0')).toHaveLength(1);
    const delivered = await json(await deliver(stack, id, { version: '1.1.0' }));
    expect(delivered.files[0].content).toBe(skillFile(slug, `# ${winner.changelog}`).content);
  });

  it('publishes 32 different versions at once and makes the highest current', async () => {
    const { stack, aliceKey } = await authorStack();
    const { id, slug } = await publish(stack, aliceKey);
    const versions = Array.from({ length: 32 }, (_, i) => `${1 + (i % 4)}.${(i * 7) % 11}.${i + 1}`);
    const responses = await Promise.all(
      versions.map((version) => withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: { version, files: [skillFile(slug)] } })),
    );
    expect(tally(statuses(responses))).toEqual({ 201: 32 });
    await stack.idle();
    expect((await json(await stack.request(`/api/registry/${slug}`))).currentVersion).toBe(semver.rsort([...versions])[0]);
  });
});

describe('yanks, undos and deprecations racing on one skill', () => {
  it('never leave the skill without a release that is not yanked, nor a yanked one current', async () => {
    const { stack, aliceKey } = await authorStack();
    const { id, slug } = await publish(stack, aliceKey);
    const releases = ['1.0.0', '1.1.0', '1.2.0', '2.0.0'];
    for (const version of releases.slice(1)) {
      expect((await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: { version, files: [skillFile(slug)] } })).status).toBe(201);
    }
    const lifecycle = (path: string, method: string, body?: unknown) =>
      withKey(stack, aliceKey, `/api/skills/${id}${path}`, { method, ...(body === undefined ? {} : { body }) });
    for (let round = 0; round < 6; round++) {
      // Every release yanked or undone at once, and the deprecation set and undone beside them.
      const responses = await Promise.all([
        ...releases.map((version, i) =>
          (round + i) % 3 === 2
            ? lifecycle(`/versions/${version}/yank`, 'DELETE')
            : lifecycle(`/versions/${version}/yank`, 'POST', { reason: `round ${round}` }),
        ),
        lifecycle('/deprecate', 'POST', { message: `round ${round}` }),
        lifecycle('/deprecate', 'DELETE'),
      ]);
      // Each answer is a success or a refusal the contract names: none is a 500.
      for (const res of responses) expect([200, 400, 429], await res.clone().text()).toContain(res.status);
      // The registry the rebuild writes from the table: a release that is not yanked is current.
      await stack.idle();
      const current = (await json(await stack.request(`/api/registry/${slug}`))).currentVersion;
      const { versions } = await json(await stack.request(`/api/registry/${slug}/versions`));
      const yanked = new Set(versions.filter((v: { yanked?: boolean }) => v.yanked).map((v: { version: string }) => v.version));
      expect(releases.filter((v) => !yanked.has(v)).length, `round ${round}`).toBeGreaterThan(0);
      expect(yanked.has(current), `round ${round}: the current ${current} is yanked`).toBe(false);
    }
  });
});

describe('the publish rate limit under a burst', () => {
  it('admits exactly 5 of 20 concurrent publishes and stores exactly those 5 skills', async () => {
    const stack = await createTestStack(); // the default limit: 5 a minute
    const author = await Client.signIn(stack, 'burst');
    const key = await author.createKey();
    const responses = await Promise.all(Array.from({ length: 20 }, () => withKey(stack, key, '/api/publish', { body: skillBody() })));
    expect(tally(statuses(responses))).toEqual({ 201: 5, 429: 15 });
    for (const res of responses.filter((r) => r.status === 429)) {
      expect((await json(res)).error.code).toBe('rate_limited');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const admitted = await Promise.all(responses.filter((r) => r.status === 201).map((r) => json<{ id: string }>(r)));
    const metas = (await scanItems(stack.deps.db)).filter((item) => item.sk === 'META').map((item) => item.id);
    expect(metas.sort()).toEqual(admitted.map((s) => s.id).sort());
    expect((await scanItems(stack.deps.db)).filter((item) => item.pk.startsWith('SLUG#'))).toHaveLength(5);
  });
});

describe('1,000 concurrent deliveries', () => {
  it('counts every free delivery exactly once, by source, and nothing for refused ones', async () => {
    const { stack, alice, aliceKey } = await authorStack();
    const { id } = await publish(stack, aliceKey);
    const sources = ['cli', 'web', 'api', 'bogus'] as const;
    const requests = Array.from({ length: 1000 }, (_, i) => sources[i % 7 === 0 ? 3 : i % 3]!);
    const responses = await Promise.all(requests.map((source) => deliver(stack, id, { source })));
    const served = requests.filter((_, i) => responses[i]!.status === 200);
    expect(tally(statuses(responses))).toEqual({ 200: served.length, 400: requests.filter((s) => s === 'bogus').length });
    const counts = await analytics(alice, id);
    expect(counts.total).toBe(served.length);
    expect(counts.bySource).toEqual({ cli: tally(served).cli, web: tally(served).web, api: tally(served).api });
  });

  it('spends a token with maxUses 100 exactly 100 times and counts exactly those', async () => {
    const { stack, alice, aliceKey } = await authorStack();
    const { id } = await publish(stack, aliceKey, { paid: true });
    const { token, id: tokenId } = await issueToken(alice, id, { maxUses: 100 });
    const responses = await Promise.all(Array.from({ length: 1000 }, () => deliver(stack, id, { token, source: 'cli' })));
    expect(tally(statuses(responses))).toEqual({ 200: 100, 401: 900 });
    expect((await analytics(alice, id)).bySource).toEqual({ cli: 100, web: 0, api: 0 });
    const listed = await json(await alice.session(`/api/skills/${id}/download-tokens`));
    expect(listed.tokens.find((t: { id: string }) => t.id === tokenId).uses).toBe(100);
  });
});
