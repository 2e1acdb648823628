import type { S3Client } from '@aws-sdk/client-s3';
import { getObjectBytes, putObject } from './s3.ts';

/**
 * What each shard of a full rebuild produced, kept between the shard Lambdas and the one that
 * writes the shared indexes (functions/rebuild/fan-out.ts): JSON in the private content bucket,
 * under `rebuild-runs/<run>/`, which the bucket's lifecycle expires after two days.
 */
export const SHARD_OUTPUTS_PREFIX = 'rebuild-runs/';
export const shardOutputKey = (run: string, shard: number) => `${SHARD_OUTPUTS_PREFIX}${run}/shard-${shard}.json`;

export interface ShardOutputs {
  s3: S3Client;
  bucket: string;
}

export async function putShardOutput(where: ShardOutputs, run: string, shard: number, output: unknown): Promise<void> {
  await putObject(where.s3, where.bucket, shardOutputKey(run, shard), JSON.stringify(output), { contentType: 'application/json' });
}

/** The output of shard `shard` of run `run`; undefined when that shard has not finished. */
export async function getShardOutput<T>(where: ShardOutputs, run: string, shard: number): Promise<T | undefined> {
  const bytes = await getObjectBytes(where.s3, where.bucket, shardOutputKey(run, shard));
  return bytes ? (JSON.parse(Buffer.from(bytes).toString('utf8')) as T) : undefined;
}
