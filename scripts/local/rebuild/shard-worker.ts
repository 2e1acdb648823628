import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '#functions/platform/config';
import { createDeps } from '#functions/platform/composition';
import { createLogger, type Level } from '#functions/platform/log';
import { Rebuilder } from '#functions/rebuild/rebuilder';

/** One shard of a full rebuild, in a thread of its own with its own SDK clients (see shards.ts). */
const { config, shard, shards, logLevel } = workerData as { config: Config; shard: number; shards: number; logLevel: Level | 'silent' };
const deps = createDeps(config, { log: createLogger(logLevel) });
try {
  parentPort!.postMessage({ output: await new Rebuilder(deps).rebuildShard(shard, shards) });
} catch (error) {
  parentPort!.postMessage({ error: (error as Error).message ?? String(error) });
} finally {
  deps.s3.destroy();
  deps.db.doc.destroy();
}
