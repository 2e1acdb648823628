import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Health } from '#core/schemas';
import { seedSkills } from '#scripts/seed-store';
import { eventually } from '../support/eventually.ts';
import { createTestStack, json, type TestStack } from '../support/stack.ts';
import { type Fault, plantFault, removeFault } from '../support/unbuildable-skill.ts';

/**
 * One skill's rebuild failing must never cost another skill its rebuild. Each property run
 * seeds a batch of skills, gives a random few of them a real fault (a version whose bundle the
 * embedded S3 cannot store, or a damaged version item), and names the whole batch in one change,
 * as one write burst would. Every other skill must be rebuilt and indexed while the faulty ones
 * keep failing and are reported; the full rebuild must report exactly the faulty ones; once the
 * faults are repaired, their retries must bring every skill up and health back to ok.
 */

let stack: TestStack;
beforeAll(async () => {
  stack = await createTestStack({}, {}, { maxRebuildBackoffMs: 100 });
});
afterAll(() => stack.runtime.close());

async function get(path: string): Promise<{ status: number; body: any }> {
  const res = await stack.request(path);
  return { status: res.status, body: res.status === 200 ? await json(res) : undefined };
}
const health = async () => (await get('/api/health')).body as Health;
const failingIds = (h: Health) => (h.rebuild?.skills ?? []).map((s) => s.skillId).sort();

const batchOfSkills = fc.array(fc.constantFrom<'fine' | Fault>('fine', 'fine', 'fine', 'unstorable', 'damaged'), { minLength: 4, maxLength: 16 });

describe('a batch in which random skills cannot be rebuilt', () => {
  it('rebuilds and indexes every other skill, reports exactly the failing ones, and recovers them once repaired', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(batchOfSkills, async (kinds) => {
        run += 1;
        const skills = await seedSkills(stack.deps, { count: kinds.length, slugPrefix: `isolation-${run}` });
        const faulty = skills.filter((_, i) => kinds[i] !== 'fine');
        const fine = skills.filter((_, i) => kinds[i] === 'fine');
        for (const [i, skill] of skills.entries()) if (kinds[i] !== 'fine') await plantFault(stack.deps.db, skill.id, kinds[i] as Fault);
        const expectedFailing = faulty.map((s) => s.id).sort();

        stack.deps.changed(skills.map((s) => s.id));
        // Every fine skill is rebuilt and indexed; the faulty ones are failing, each on its own.
        const catalog = await eventually(
          () => get('/.well-known/skills.json'),
          (r) => fine.every((s) => r.body?.skills.some((e: { slug: string }) => e.slug === s.slug)),
        );
        expect((catalog.body?.skills ?? []).map((e: { slug: string }) => e.slug)).toEqual(expect.arrayContaining(fine.map((s) => s.slug)));
        for (const skill of fine) expect((await get(`/api/registry/${skill.slug}`)).body?.id).toBe(skill.id);
        expect(failingIds(await eventually(health, (h) => failingIds(h).length === expectedFailing.length))).toEqual(expectedFailing);
        // Nothing half-built of a faulty skill is visible: it was never rebuilt, so it has no registry JSON.
        for (const skill of faulty) expect((await get(`/api/registry/${skill.slug}`)).status).toBe(404);

        const report = await stack.runtime.rebuildAll();
        expect(report.failed.map((f) => f.skillId).sort()).toEqual(expectedFailing);

        for (const [i, skill] of skills.entries()) if (kinds[i] !== 'fine') await removeFault(stack.deps.db, skill.id, kinds[i] as Fault);
        expect(await eventually(health, (h) => h.status === 'ok')).toEqual({ status: 'ok' });
        await stack.idle();
        for (const skill of faulty)
          expect((await get(`/api/registry/${skill.slug}/versions`)).body?.versions.map((v: { version: string }) => v.version)).toEqual(['1.0.0']);
      }),
      { numRuns: Number(process.env.ISOLATION_RUNS ?? 10) },
    );
  });
});
