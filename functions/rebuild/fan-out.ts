import { mapLimit } from '#core/map-limit';
import { getShardOutput, putShardOutput } from '../content/shard-outputs.ts';
import type { Deps } from '../platform/composition.ts';
import { type SiteBuildOutcome, triggerSiteBuild } from '../services/site-build.ts';
import { describeNonConforming } from './non-conforming.ts';
import { type RebuildReport, Rebuilder, type ShardOutput } from './rebuilder.ts';
import { failureFields } from './skill-failure.ts';

/**
 * The daily full rebuild on AWS, fanned out (docs/deploy.md, "Scale"): a Step Functions
 * distributed map runs one `rebuild-shard` Lambda per shard, at most a bounded number at once;
 * each rebuilds its share of the table's scan segments (`Rebuilder.rebuildShard`: every skill on
 * its own, as the stream rebuild does) and stores what it produced. Then the `full-rebuild`
 * Lambda writes the shared indexes once from all of it (`Rebuilder.finishRebuild`) and asks for
 * a site build. Locally the same two methods run with a thread per shard
 * (scripts/local/rebuild/shards.ts).
 */
export interface ShardTask {
  /** The state machine's execution name: one run. */
  run: string;
  shard: number;
  shards: number;
}

/** The most shards a run may have: each scans four segments of a table split in 4 × shards. */
export const MAX_SHARDS = 256;

/** One shard: its files written, its output stored for the finish. */
export async function rebuildShardTask(deps: Deps, task: ShardTask): Promise<{ shard: number; skills: number; failed: number; written: number }> {
  const { run, shard, shards } = checkedTask(task);
  const started = performance.now();
  const output = await new Rebuilder(deps).rebuildShard(shard, shards);
  await putShardOutput({ s3: deps.s3, bucket: deps.config.contentBucket }, run, shard, output);
  for (const failure of output.failed) deps.log.error('full rebuild: a skill failed', { shard, ...failureFields(failure) });
  deps.log.info('full rebuild shard', { shard, shards, skills: output.rebuilt, written: output.written, ms: Math.round(performance.now() - started) });
  return { shard, skills: output.rebuilt, failed: output.failed.length, written: output.written };
}

/** The finish: the shared indexes from every shard's output, then a site build. Throws when a shard's output is missing. */
export async function finishShardedRebuild(deps: Deps, run: string, shards: number): Promise<RebuildReport & { site: SiteBuildOutcome }> {
  checkedTask({ run, shard: 0, shards });
  const started = performance.now();
  const where = { s3: deps.s3, bucket: deps.config.contentBucket };
  const outputs = await mapLimit(
    Array.from({ length: shards }, (_, shard) => shard),
    8,
    async (shard) => {
      const output = await getShardOutput<ShardOutput>(where, run, shard);
      if (!output) throw new Error(`full rebuild ${run}: shard ${shard} of ${shards} left no output`);
      return output;
    },
  );
  const report = await new Rebuilder(deps).finishRebuild(outputs);
  for (const skill of report.nonConforming)
    deps.log.warn('full rebuild: left out of the discovery index, not a valid Agent Skill', { detail: describeNonConforming(skill) });
  deps.log.info('full rebuild', {
    run,
    shards,
    skills: report.skills,
    written: report.written,
    failed: report.failed.length,
    ms: Math.round(performance.now() - started),
  });
  return { ...report, site: await triggerSiteBuild(deps) };
}

function checkedTask(task: ShardTask): ShardTask {
  const { run, shard, shards } = task ?? ({} as ShardTask);
  const sound =
    typeof run === 'string' &&
    /^[A-Za-z0-9_-]{1,80}$/.test(run) &&
    Number.isInteger(shards) &&
    shards >= 1 &&
    shards <= MAX_SHARDS &&
    Number.isInteger(shard) &&
    shard >= 0 &&
    shard < shards;
  if (!sound) throw new Error(`not a shard of a full rebuild: ${JSON.stringify(task).slice(0, 200)}`);
  return { run, shard, shards };
}
