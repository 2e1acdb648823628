import { describe, expect, it } from 'vitest';
import type { Health } from '#core/schemas';
import { seedSkills } from '#scripts/seed-store';
import { publish } from '../support/delivery.ts';
import { eventually } from '../support/eventually.ts';
import { Client, createTestStack, json, type TestStack } from '../support/stack.ts';
import { type Fault, plantFault, removeFault } from '../support/unbuildable-skill.ts';

/**
 * One skill whose rebuild fails, with a real fault in the store (a version whose bundle s3rver
 * cannot store, or a damaged version item), must never hold up anything else: other authors'
 * writes are rebuilt and indexed, `/api/health` says degraded and names the skill until a retry
 * succeeds, and the full rebuild rebuilds everything else and reports it.
 */

/**
 * A stack whose failing skills are retried at least every 100 ms, with alice and bob holding
 * keys. Its rebuilder takes the bundles of versions published before it started as present, as
 * under `npm start`.
 */
async function twoAuthors(): Promise<{ stack: TestStack; aliceKey: string; bobKey: string }> {
  const stack = await createTestStack(
    {},
    { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' },
    { maxRebuildBackoffMs: 100, rebuilder: { bundlesCompleteAtStart: true } },
  );
  const aliceKey = await (await Client.signIn(stack, 'alice')).createKey();
  const bobKey = await (await Client.signIn(stack, 'bob')).createKey();
  return { stack, aliceKey, bobKey };
}

async function get(stack: TestStack, path: string): Promise<{ status: number; body: any }> {
  const res = await stack.request(path);
  return { status: res.status, body: res.status === 200 ? await json(res) : undefined };
}

const health = async (stack: TestStack) => (await get(stack, '/api/health')).body as Health;
const catalogSlugs = async (stack: TestStack) =>
  ((await get(stack, '/.well-known/skills.json')).body?.skills ?? []).map((s: { slug: string }) => s.slug) as string[];
const discoveryNames = async (stack: TestStack) =>
  ((await get(stack, '/.well-known/agent-skills/index.json')).body?.skills ?? []).map((s: { name: string }) => s.name) as string[];
const listedVersions = async (stack: TestStack, slug: string) =>
  (await get(stack, `/api/registry/${slug}/versions`)).body?.versions.map((v: { version: string }) => v.version);

const codeOf: Record<Fault, string> = { unstorable: 'InternalError', damaged: 'DamagedItem' };

describe.each(['unstorable', 'damaged'] as const)('a skill with a version that is %s', (fault) => {
  it("never holds up another author's write: its registry JSON and catalog entry appear while that skill keeps failing", async () => {
    const { stack, aliceKey, bobKey } = await twoAuthors();
    try {
      const bad = await publish(stack, aliceKey);
      await stack.idle();
      await plantFault(stack.deps.db, bad.id, fault);
      stack.deps.changed([bad.id]); // what the API does once it has committed a version
      const good = await publish(stack, bobKey);

      const registry = await eventually(
        () => get(stack, `/api/registry/${good.slug}`),
        (r) => r.status === 200,
      );
      expect(registry.body).toMatchObject({ id: good.id, currentVersion: '1.0.0' });
      expect(
        await eventually(
          () => catalogSlugs(stack),
          (slugs) => slugs.includes(good.slug),
        ),
      ).toEqual(expect.arrayContaining([good.slug, bad.slug]));
      expect(
        await eventually(
          () => discoveryNames(stack),
          (names) => names.includes(good.slug),
        ),
      ).toContain(good.slug);

      // Meanwhile the bad skill is retried, and keeps what it had: its files name no version they cannot back.
      const retried = await eventually(
        () => health(stack),
        (h) => (h.rebuild?.skills[0]?.attempts ?? 0) >= 3,
      );
      expect(retried.rebuild?.skills.map((s) => s.skillId)).toEqual([bad.id]);
      expect(await listedVersions(stack, bad.slug)).toEqual(['1.0.0']);
    } finally {
      await stack.runtime.close();
    }
  });
});

describe('/api/health', () => {
  it('says degraded (still 200) naming the failing skill, and ok again once the item is repaired and its retry succeeds', async () => {
    const { stack, aliceKey } = await twoAuthors();
    try {
      expect(await health(stack)).toEqual({ status: 'ok' });
      const bad = await publish(stack, aliceKey);
      await stack.idle();
      await plantFault(stack.deps.db, bad.id, 'unstorable');
      stack.deps.changed([bad.id]);

      const degraded = await eventually(
        () => get(stack, '/api/health'),
        (r) => r.body?.status === 'degraded',
      );
      expect(degraded.status).toBe(200);
      expect(degraded.body).toEqual({
        status: 'degraded',
        rebuild: {
          failing: 1,
          skills: [
            {
              skillId: bad.id,
              slug: bad.slug,
              stage: 'files',
              attempts: expect.any(Number),
              since: expect.any(String),
              error: { code: 'InternalError', message: expect.any(String) },
            },
          ],
        },
      });
      // A safe message: the error's own words, one line, no stack, no request.
      expect(degraded.body.rebuild.skills[0].error.message).toMatch(/^[^\n]{1,200}$/);
      expect(JSON.stringify(degraded.body)).not.toMatch(/\bat .*\.[jt]s:\d+|S3RVER|x-amz/i);

      await removeFault(stack.deps.db, bad.id, 'unstorable');
      expect(
        await eventually(
          () => health(stack),
          (h) => h.status === 'ok',
        ),
      ).toEqual({ status: 'ok' });
      await stack.idle(); // nothing is left to retry
    } finally {
      await stack.runtime.close();
    }
  });
});

describe('the full rebuild with skills it cannot rebuild', () => {
  it('rebuilds every other skill and both indexes, reports those skills, keeps their entries, and hands them to the retrying trigger', async () => {
    const { stack, aliceKey } = await twoAuthors();
    try {
      const unstorable = await publish(stack, aliceKey);
      const damaged = await publish(stack, aliceKey);
      await stack.idle();
      // Published before the runtime started: only the full rebuild's failure says their bundles are not there.
      const longAgo = '2020-01-01T00:00:00.000Z';
      await plantFault(stack.deps.db, unstorable.id, 'unstorable', longAgo);
      await plantFault(stack.deps.db, damaged.id, 'damaged', longAgo);
      // Committed skills whose rebuild never ran, as a crash leaves them: only the full rebuild builds them.
      const unbuilt = await seedSkills(stack.deps, { count: 3, slugPrefix: `unbuilt-${unstorable.id.slice(0, 8)}` });

      const report = await stack.runtime.rebuildAll();
      expect(report.skills).toBe(3);
      const failed = report.failed.map((f) => [f.skillId, f.slug, f.error.code]).sort();
      expect(failed).toEqual(
        [
          // The full rebuild asks S3 about the bundle with a HEAD before writing it, and an
          // error answer to a HEAD has no body to name its code: the SDK calls it Unknown.
          [unstorable.id, unstorable.slug, expect.stringMatching(/^(InternalError|Unknown)$/)],
          [damaged.id, damaged.slug, codeOf.damaged],
        ].sort(),
      );
      for (const skill of unbuilt) expect((await get(stack, `/api/registry/${skill.slug}`)).body?.currentVersion).toBe('1.0.0');
      const slugs = [...unbuilt.map((s) => s.slug), unstorable.slug, damaged.slug];
      expect(await catalogSlugs(stack)).toEqual(expect.arrayContaining(slugs));
      expect(await discoveryNames(stack)).toEqual(expect.arrayContaining(slugs));
      expect(await listedVersions(stack, unstorable.slug)).toEqual(['1.0.0']);

      // Handed to the trigger: reported at once, retried (and failing for real), and well again once repaired.
      expect((await health(stack)).rebuild?.skills.map((s) => s.slug).sort()).toEqual([unstorable.slug, damaged.slug].sort());
      const retried = await eventually(
        () => health(stack),
        (h) => h.rebuild?.skills.every((s) => s.attempts >= 3) ?? false,
      );
      expect(retried.rebuild?.failing).toBe(2);
      expect(await listedVersions(stack, unstorable.slug)).toEqual(['1.0.0']);
      expect(await listedVersions(stack, damaged.slug)).toEqual(['1.0.0']);
      await removeFault(stack.deps.db, unstorable.id, 'unstorable');
      await removeFault(stack.deps.db, damaged.id, 'damaged');
      expect(
        await eventually(
          () => health(stack),
          (h) => h.status === 'ok',
        ),
      ).toEqual({ status: 'ok' });
    } finally {
      await stack.runtime.close();
    }
  });
});
