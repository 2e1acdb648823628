import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { configFromEnv } from '#functions/platform/config';
import { getObjectBytes } from '#functions/content/s3';
import { createDeps, type Deps } from '#functions/platform/composition';
import { createLogger } from '#functions/platform/log';
import type { Db } from '#functions/store/db';
import { startEmbeddedServices } from '#scripts/local/stack';

/** Reading everything a store holds, for checks that must see the raw items and objects. */

export type Item = Record<string, unknown> & { pk: string; sk: string };

/** Every item of the table, following the scan's pages. */
export async function scanItems(db: Db): Promise<Item[]> {
  const items: Item[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.doc.send(new ScanCommand({ TableName: db.table, ExclusiveStartKey, ConsistentRead: true }));
    items.push(...((page.Items ?? []) as Item[]));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/** Every key of a bucket with its ETag, following the listing's pages. */
export async function listObjects(s3: S3Client, bucket: string): Promise<Map<string, string>> {
  const keys = new Map<string, string>();
  let ContinuationToken: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken }));
    for (const object of page.Contents ?? []) keys.set(object.Key!, object.ETag ?? '');
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return keys;
}

/** Every object of a bucket with its bytes. */
export async function readObjects(s3: S3Client, bucket: string): Promise<Map<string, Buffer>> {
  const objects = new Map<string, Buffer>();
  for (const key of (await listObjects(s3, bucket)).keys()) objects.set(key, Buffer.from((await getObjectBytes(s3, bucket, key))!));
  return objects;
}

/** The store `npm start` keeps under `dataDir`, opened while no server runs on it. */
export async function openDataDir(dataDir: string): Promise<{ deps: Deps; stop(): Promise<void> }> {
  const services = await startEmbeddedServices(dataDir);
  const config = configFromEnv({ DYNAMODB_ENDPOINT: services.dynamoEndpoint, S3_ENDPOINT: services.s3Endpoint });
  const deps = createDeps(config, { log: createLogger('silent') });
  return { deps, stop: () => services.stop() };
}
