import { Worker } from 'node:worker_threads';
import type { Config } from '#functions/platform/config';
import type { Level } from '#functions/platform/log';
import type { RebuildReport, Rebuilder, ShardOutput } from '#functions/rebuild/rebuilder';

/**
 * The full rebuild fanned out on one machine, as it is on AWS (functions/rebuild/shards.ts): each
 * shard runs `Rebuilder.rebuildShard` in a worker thread of its own, with its own SDK clients,
 * and `rebuilder` writes the shared indexes once from what they produced. One shard runs in the
 * calling thread. On this 2-core machine the threads share the cores with the embedded DynamoDB
 * and S3 (docs/benchmarks.md gives what that bounds).
 */
export async function rebuildInShards(rebuilder: Rebuilder, config: Config, shards: number, logLevel: Level | 'silent' = 'warn'): Promise<RebuildReport> {
  if (shards <= 1) return rebuilder.rebuildAll();
  const { kmsKeyId, keyFile, inlineKey } = config.signing;
  // A key made for this process alone would sign each thread's skills with a key of its own.
  if (kmsKeyId === undefined && keyFile === undefined && inlineKey === undefined)
    throw new Error('a rebuild in shards needs a signing key its threads share (SIGNING_KMS_KEY_ID, SKILLPRESS_SIGNING_KEY_FILE or the runtime config)');
  const outputs = await Promise.all(Array.from({ length: shards }, (_, shard) => runShard(config, shard, shards, logLevel)));
  return rebuilder.finishRebuild(outputs);
}

/** The shard count `SKILLPRESS_REBUILD_SHARDS` asks for: 1 (no threads) unless set. */
export function shardsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const asked = Number(env.SKILLPRESS_REBUILD_SHARDS ?? 1);
  return Number.isInteger(asked) && asked >= 1 && asked <= 64 ? asked : 1;
}

function runShard(config: Config, shard: number, shards: number, logLevel: Level | 'silent'): Promise<ShardOutput> {
  const workerData = { config, shard, shards, logLevel };
  // Bundled (`npm start`), the entry is rebuild-shard-worker.mjs beside the bundle; from the sources, boot.mjs registers the TypeScript loader first.
  const worker = import.meta.url.endsWith('.mjs')
    ? new Worker(new URL('./rebuild-shard-worker.mjs', import.meta.url), { workerData })
    : new Worker(new URL('../background/boot.mjs', import.meta.url), {
        workerData: { ...workerData, entry: new URL('./shard-worker.ts', import.meta.url).href },
      });
  return new Promise((resolve, reject) => {
    let settled = false;
    worker.once('message', (message: { output?: ShardOutput; error?: string }) => {
      settled = true;
      if (message.output) resolve(message.output);
      else reject(new Error(`rebuild shard ${shard} of ${shards} failed: ${message.error}`));
    });
    worker.once('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`rebuild shard ${shard} of ${shards} exited with code ${code} before its output`));
    });
  });
}
