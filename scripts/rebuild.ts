import { Rebuilder } from '#functions/rebuild/rebuilder';
import { withTargetDeps } from './target-deps.ts';

/**
 * `npm run rebuild`: regenerates every static file from DynamoDB — the repair path. Locally it
 * runs against the embedded services over DATA_DIR (stop `npm start` first: both would open the
 * same store); with SKILLPRESS_TARGET=aws and AWS credentials it rebuilds on AWS.
 */
await withTargetDeps(async (deps) => {
  const started = performance.now();
  const { skills, written } = await new Rebuilder(deps).rebuildAll();
  const seconds = (performance.now() - started) / 1000;
  console.log(`Rebuilt ${skills} skills in ${seconds.toFixed(2)} s (${written} files written)`);
});
