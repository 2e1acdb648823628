import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Config } from '#functions/platform/config';
import { isMissing } from '#functions/content/s3';
import { createS3 } from '#functions/content/s3-client';
import { tableKeys } from '#functions/store/db';

/**
 * The embedded AWS services of the local runtime and the tests: dynalite and s3rver in child
 * processes on loopback, persisting under `dataDir` (or in memory / a temp dir when omitted).
 */

export interface EmbeddedServices {
  dynamoEndpoint: string;
  s3Endpoint: string;
  /** The two child processes (dynalite, s3rver). */
  pids: number[];
  stop(): Promise<void>;
}

/** The child processes' scripts, found the same way from this module and from the server's bundle, dist/server/ (see scripts/serve.mjs). */
const embedded = fileURLToPath(new URL('../../scripts/local/embedded/', import.meta.url));

export async function startEmbeddedServices(dataDir?: string): Promise<EmbeddedServices> {
  // Without a data dir (tests) DynamoDB lives in memory and S3 in a throw-away folder.
  const dynamoDir = dataDir ? join(dataDir, 'dynamodb') : '';
  const s3Dir = dataDir ? join(dataDir, 's3') : mkdtempSync(join(scratchDir(), 'skillpress-s3-'));
  for (const dir of [dynamoDir, s3Dir]) if (dir) mkdirSync(dir, { recursive: true });
  const [dynamo, s3] = await Promise.all([
    startChild(join(embedded, 'dynamodb.mjs'), dynamoDir, []),
    startChild(join(embedded, 's3.mjs'), s3Dir, ['--openssl-legacy-provider'], { UV_THREADPOOL_SIZE: '16' }),
  ]);
  return {
    dynamoEndpoint: `http://127.0.0.1:${dynamo.port}`,
    s3Endpoint: `http://127.0.0.1:${s3.port}`,
    pids: [dynamo.child.pid!, s3.child.pid!],
    stop: async () => {
      await Promise.all([stopChild(dynamo.child), stopChild(s3.child)]);
      if (!dataDir) rmSync(s3Dir, { recursive: true, force: true });
    },
  };
}

/** s3rver keeps every object as several files; on a RAM-backed folder a throw-away store is ~8× faster. */
function scratchDir(): string {
  return existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
}

async function startChild(script: string, path: string, execArgv: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcess; port: number }> {
  // s3rver's file store waits on the libuv pool; more threads let concurrent requests overlap.
  const child = fork(script, [], { env: { ...process.env, ...env, EMBEDDED_PATH: path }, execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    child.once('error', reject);
  });
  child.unref();
  return { child, port };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.disconnect();
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

/** Creates the table (with its GSI) and the buckets when missing. Idempotent. */
export async function ensureStorage(config: Config, s3: S3Client = createS3(config)): Promise<void> {
  const dynamo = new DynamoDBClient({
    region: config.region,
    endpoint: config.dynamoEndpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    await ensureTable(dynamo, config.tableName);
  } finally {
    dynamo.destroy();
  }
  for (const bucket of [config.contentBucket, config.staticBucket]) await ensureBucket(s3, bucket);
}

async function ensureTable(dynamo: DynamoDBClient, table: string): Promise<void> {
  try {
    await dynamo.send(new DescribeTableCommand({ TableName: table }));
    return;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const { partition, sort, byOwner } = tableKeys;
  await dynamo.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [partition, sort, byOwner.partition, byOwner.sort].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: partition, KeyType: 'HASH' },
        { AttributeName: sort, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: byOwner.name,
          KeySchema: [
            { AttributeName: byOwner.partition, KeyType: 'HASH' },
            { AttributeName: byOwner.sort, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
  await waitUntilTableExists({ client: dynamo, maxWaitTime: 30, minDelay: 0.1, maxDelay: 0.5 }, { TableName: table });
}

async function ensureBucket(s3: S3Client, bucket: string): Promise<void> {
  try {
    await s3.send(new HeadBucketCommand({ Bucket: bucket }));
  } catch (error) {
    if (!isMissing(error)) throw error;
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  }
}
