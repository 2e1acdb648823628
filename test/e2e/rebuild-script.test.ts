import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { DISCOVERY_INDEX_KEY } from '#core/static-paths';
import { ensureStorage } from '#scripts/local/stack';
import { seedSkills } from '#scripts/seed-store';
import { openDataDir } from '../reliability/support/store.ts';
import { rewriteAsLegacy } from '../support/legacy-version.ts';
import { skillMd } from '../support/skill-md.ts';

/**
 * `npm run rebuild` over a store from before the conformance check: skills whose current version
 * is not a valid Agent Skill are left out of the discovery index, and the script says which, and why.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('npm run rebuild', () => {
  it('leaves skills that do not conform out of the discovery index, prints them with their problems, and succeeds', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'skillpress-e2e-rebuild-'));
    dirs.push(dataDir);
    const store = await openDataDir(dataDir);
    await ensureStorage(store.deps.config, store.deps.s3);
    const [bad, fine, modern] = await seedSkills(store.deps, { count: 3, slugPrefix: 'legacy' });
    await rewriteAsLegacy(store.deps, bad!.id, '1.0.0', '# An old skill without front matter\n');
    await rewriteAsLegacy(store.deps, fine!.id, '1.0.0', skillMd(fine!.slug, '# Old but fine', 'Described in its old SKILL.md'));
    await store.stop();

    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/rebuild.ts'], {
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    });
    expect(stdout).toContain('Rebuilt 3 skills');
    expect(stdout).toContain('Left out of the discovery index, as their current version is not a valid Agent Skill (1; publish a fixed version):');
    expect(stdout).toContain(`  ${bad!.slug}@1.0.0: SKILL.md: SKILL.md must begin with YAML front matter`);
    expect(stdout).not.toContain(fine!.slug);

    const after = await openDataDir(dataDir);
    try {
      const index = JSON.parse(Buffer.from((await after.deps.staticStore.get(DISCOVERY_INDEX_KEY))!).toString('utf8'));
      expect(index.skills.map((s: { name: string; description: string }) => [s.name, s.description])).toEqual([
        [fine!.slug, 'Described in its old SKILL.md'],
        [modern!.slug, 'A seeded skill'],
      ]);
    } finally {
      await after.stop();
    }
  });
});
