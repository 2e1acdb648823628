import { Rebuilder } from '#functions/rebuild/rebuilder';
import { describeFailure } from '#functions/rebuild/skill-failure';
import { rescanAll } from '#functions/services/rescan';
import { withTargetDeps } from './target-deps.ts';

/**
 * `npm run rescan`: scans every version again with the current rules, stores the scans that
 * changed and quarantines skills with a version that is now malicious (docs/scanning.md). Then
 * it rebuilds the static files of the skills it changed, so their registry documents carry the
 * new findings and a quarantined skill leaves the catalog at once (on AWS the table's stream
 * would do it too; the same files again are harmless). Like `npm run rebuild`, it works on the
 * local store under DATA_DIR (stop `npm start` first), or on AWS with SKILLPRESS_TARGET=aws.
 * Exits with 1 when some skill could not be rescanned.
 */
await withTargetDeps(async (deps) => {
  const touched: string[] = [];
  const started = performance.now();
  const report = await rescanAll({ ...deps, changed: (ids) => touched.push(...ids) });
  const rebuildFailed = touched.length > 0 ? await new Rebuilder(deps).rebuild(touched) : [];
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `Rescanned ${report.versions} versions of ${report.skills} skills in ${seconds.toFixed(2)} s: ${report.changed} scans changed, ` +
      `${report.quarantined.length} skills quarantined${report.quarantined.length > 0 ? ` (${report.quarantined.join(', ')})` : ''}`,
  );
  const failed = [...report.failed, ...rebuildFailed];
  if (failed.length === 0) return;
  console.error(`Could not rescan or rebuild ${failed.length} skills:`);
  for (const failure of failed) console.error(`  ${describeFailure(failure)}`);
  process.exitCode = 1;
});
