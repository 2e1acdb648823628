import { Rebuilder } from '#functions/rebuild/rebuilder';
import { describeFailure } from '#functions/rebuild/skill-failure';
import { nonConformingReport } from '#functions/rebuild/non-conforming';
import { rebuildInShards, shardsFromEnv } from './local/rebuild/shards.ts';
import { withTargetDeps } from './target-deps.ts';

/**
 * `npm run rebuild`: regenerates every static file from DynamoDB — the repair path. Locally it
 * runs against the embedded services over DATA_DIR (stop `npm start` first: both would open the
 * same store); with SKILLPRESS_TARGET=aws and AWS credentials it rebuilds on AWS.
 *
 * Free skills whose current version is not a valid Agent Skill (published before the check) are
 * left out of the discovery index, which standard skills clients read, and listed with their
 * problems; the rest of their files are written as usual.
 *
 * SKILLPRESS_REBUILD_SHARDS=<n> runs it in n shards, each in a thread of its own (locally; on AWS
 * the full-rebuild Lambda fans out to shard Lambdas instead).
 *
 * A skill it cannot rebuild does not stop it: every other skill and both indexes are written,
 * the skills that failed are printed, and it exits with 1, because a repair that left skills
 * unrepaired should not look like success to whoever (or whatever script) ran it.
 */
await withTargetDeps(async (deps) => {
  const started = performance.now();
  const shards = shardsFromEnv();
  const { skills, written, failed, nonConforming } = await rebuildInShards(new Rebuilder(deps), deps.config, shards);
  const seconds = (performance.now() - started) / 1000;
  console.log(`Rebuilt ${skills} skills in ${seconds.toFixed(2)} s (${written} files written)`);
  for (const line of nonConformingReport(nonConforming)) console.log(line);
  if (failed.length === 0) return;
  console.error(`Could not rebuild ${failed.length} skills; their static files and index entries stay as they were:`);
  for (const failure of failed) console.error(`  ${describeFailure(failure)}`);
  process.exitCode = 1;
});
