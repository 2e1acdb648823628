import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '#functions/platform/log';
import { publishInstallCounts } from '#functions/services/public-installs';
import { seedFiles, seedSkills } from '../seed-store.ts';
import { LocalSiteBuilder, type SiteBuildReport } from '../local/site-builder.ts';
import { round, type Row } from './table.ts';
import { signInWithKey, startBenchStack } from './stack.ts';

/**
 * The Astro site at 1,000 and 10,000 skills, built as `npm start` builds it (from the static
 * bucket, in a child process, then uploaded; at normal priority here, so other load on the
 * machine does not skew the figures more than it must): first with an empty cache,
 * then again after one published version (warm cache: one registry document read, and only
 * the pages that changed uploaded). Each build is preceded by the public install counts, as in
 * `npm start`.
 */
export async function benchSite(sizes = [1000, 10_000]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const size of sizes) {
    const section = `site ${size / 1000}k`;
    const stack = await startBenchStack({ SKILLPRESS_PUBLISH_LIMIT: '100000', SKILLPRESS_VERSION_LIMIT: '100000' });
    const workDir = mkdtempSync(join(tmpdir(), 'skillpress-bench-site-'));
    const site = new LocalSiteBuilder(stack.deps.staticStore, stack.deps.config, createLogger('warn'), {
      workDir,
      nice: false,
      beforeBuild: async () => {
        await publishInstallCounts(stack.deps);
      },
    });
    try {
      const { key } = await signInWithKey(stack.baseUrl, 'bench');
      const skills = await seedSkills(stack.deps, { count: size, authorLogin: 'bench', manyVersionsEvery: 100, manyVersions: 50 });
      await stack.runtime.rebuildAll();

      const cold = required(await site.buildNow());
      process.stderr.write(`bench: ${size} skills: ${cold.pages} pages built in ${(cold.buildMs / 1000).toFixed(1)} s\n`);
      rows.push({ section, metric: 'pages', value: cold.pages, unit: 'pages' });
      rows.push({ section, metric: 'build, cold cache', value: round(cold.buildMs / 1000, 1), unit: 's' });
      rows.push({ section, metric: 'build rate, cold', value: Math.round(cold.pages / (cold.buildMs / 1000)), unit: 'pages/s' });
      rows.push({ section, metric: 'first upload', value: round(cold.uploadMs / 1000, 1), unit: 's' });
      rows.push({ section, metric: 'install counts before a build', value: round(cold.beforeBuildMs / 1000, 2), unit: 's' });

      const skill = skills[Math.floor(skills.length / 2)]!;
      const res = await fetch(`${stack.baseUrl}/api/skills/${skill.id}/versions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ version: '9.0.0', changelog: 'bench', files: seedFiles(skill.slug) }),
      });
      if (res.status !== 201) throw new Error(`publish → ${res.status} ${await res.text()}`);
      await stack.runtime.idle();
      const warm = required(await site.buildNow());
      rows.push({ section, metric: 'rebuild after 1 publish, warm cache', value: round(warm.buildMs / 1000, 1), unit: 's' });
      rows.push({ section, metric: 'upload after 1 publish', value: round(warm.uploadMs / 1000, 2), unit: 's' });
      rows.push({ section, metric: 'files uploaded after 1 publish', value: warm.uploaded, unit: `of ${warm.files}` });
    } finally {
      await site.stop();
      rmSync(workDir, { recursive: true, force: true });
      await stack.stop();
    }
  }
  return rows;
}

function required(report: SiteBuildReport | undefined): SiteBuildReport {
  if (!report) throw new Error('the site build failed (see the log above)');
  return report;
}
