import type { S3Client } from '@aws-sdk/client-s3';
import { BlobCache } from './content/blob-cache.ts';
import type { Blobs } from './content/blobs.ts';
import { createS3 } from './content/s3.ts';
import { StaticStore } from './static/static-store.ts';
import type { Config } from './config.ts';
import { createLogger, type Logger } from './log.ts';
import { createDb, type Db } from './store/db.ts';

/** What the handlers need from the outside world, created once per process. */
export interface Deps {
  config: Config;
  db: Db;
  s3: S3Client;
  blobs: Blobs;
  /** The bucket the CDN serves (registry JSON, bundles, catalog, discovery index, site). */
  staticStore: StaticStore;
  clock: () => Date;
  log: Logger;
  /**
   * Told which skills a committed write changed. On AWS the DynamoDB stream drives the rebuild
   * and this does nothing; locally it runs the rebuild in-process (dynalite has no streams).
   */
  changed: (skillIds: string[]) => void;
}

/** Small enough for a 256 MB Lambda; large enough for the hot skills' files. */
const BLOB_CACHE_BYTES = 32 * 1024 * 1024;

export function createDeps(config: Config, overrides: Partial<Omit<Deps, 'config'>> = {}): Deps {
  const s3 = overrides.s3 ?? createS3(config);
  return {
    config,
    db: overrides.db ?? createDb(config),
    s3,
    blobs: overrides.blobs ?? { s3, bucket: config.contentBucket, cache: new BlobCache(BLOB_CACHE_BYTES) },
    staticStore: overrides.staticStore ?? new StaticStore(s3, config.staticBucket),
    clock: overrides.clock ?? (() => new Date()),
    log: overrides.log ?? createLogger(),
    changed: overrides.changed ?? (() => {}),
  };
}
