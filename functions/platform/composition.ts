import type { S3Client } from '@aws-sdk/client-s3';
import type { FailingRebuild } from '#core/schemas';
import { BlobCache } from '../content/blob-cache.ts';
import type { Blobs } from '../content/blobs.ts';
import { s3OnFirstSend } from '../content/s3.ts';
import { StaticStore } from '../content/static-store.ts';
import { type Config, configFromEnv } from './config.ts';
import { createLogger, type Logger } from './log.ts';
import { createSigner, type Signer } from './signer.ts';
import { DeliveryCache } from '../services/delivery-cache.ts';
import type { Observer } from '../services/behaviour.ts';
import type { Scanner } from '../services/scanning.ts';
import { createDb, type Db } from '../store/db.ts';
import { DownloadCounter, type InstallCounter } from '../store/downloads.ts';
import { indexPopularSkill } from '../store/lookalikes.ts';
import { IMITATION_MIN_INSTALLS } from '#core/slug-imitation';

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
  /**
   * The skills whose rebuild keeps failing, for `/api/health`. Locally the rebuild's trigger
   * knows them; on AWS the rebuild runs in its own Lambda, whose failed records go to the
   * stream's dead-letter queue and its alarm, and this is empty.
   */
  failingRebuilds: () => FailingRebuild[];
  /** Skills and version payloads kept between deliveries. */
  delivery: DeliveryCache;
  /** Install counts, written behind the delivery response; flushed before a Lambda returns. */
  downloads: InstallCounter;
  /**
   * The content scanner of publishing, appeals and the rescan; absent, the rule engine of
   * core/scan (`scannerOf`). Not defaulted here: the root is in every Lambda's bundle, and the
   * engine's 2.3 MB chunk belongs only in the bundles of the Lambdas that scan.
   */
  scanner?: Scanner;
  /** The registry's signing key: signs each version's integrity (docs/api.md §11.11). */
  signer: Signer;
  /**
   * Starts the sandbox run of a version published `pending` (services/behaviour.ts): the
   * observation state machine on AWS, a child process locally (given by the local runtime).
   * Never waits for the run.
   */
  observer: Observer;
}

/** Small enough for a 256 MB Lambda; large enough for the hot skills' files. */
export const BLOB_CACHE_BYTES = 32 * 1024 * 1024;
/** How long another process's publish may take to move a delivery's default version. */
const SKILL_TTL_MS = 5000;

export function createDeps(config: Config, overrides: Partial<Omit<Deps, 'config'>> = {}): Deps {
  const s3 = overrides.s3 ?? s3OnFirstSend(config);
  const db = overrides.db ?? createDb(config);
  const log = overrides.log ?? createLogger();
  const delivery = overrides.delivery ?? new DeliveryCache(SKILL_TTL_MS);
  const changed = overrides.changed ?? (() => {});
  const clock = overrides.clock ?? (() => new Date());
  return {
    config,
    db,
    s3,
    blobs: overrides.blobs ?? { s3, bucket: config.contentBucket, cache: new BlobCache(BLOB_CACHE_BYTES) },
    staticStore: overrides.staticStore ?? new StaticStore(s3, config.staticBucket),
    clock,
    log,
    changed: (ids) => {
      delivery.forget(ids);
      changed(ids);
    },
    failingRebuilds: overrides.failingRebuilds ?? (() => []),
    delivery,
    downloads:
      overrides.downloads ??
      new DownloadCounter(db, log, {
        lingerMs: 50,
        concurrency: 4,
        clock,
        // A skill that becomes popular enough to imitate joins the index the imitation check reads.
        milestone: { installs: IMITATION_MIN_INSTALLS, reached: (skillId) => indexPopularSkill(db, skillId) },
      }),
    scanner: overrides.scanner,
    signer: overrides.signer ?? createSigner(config.signing),
    observer: overrides.observer ?? (config.observationStateMachineArn ? stateMachine(config.observationStateMachineArn, config.region) : unobserved(log)),
  };
}

/**
 * The observation state machine (platform/step-functions.ts), loaded with the first version
 * there is to observe: the root is in every Lambda's bundle, and most never start a run.
 */
function stateMachine(arn: string, region: string): Observer {
  let started: Promise<Observer> | undefined;
  return {
    async start(deps, run) {
      started ??= import('./step-functions.ts').then(({ stepFunctionsObserver }) => stepFunctionsObserver(arn, region));
      await (await started).start(deps, run);
    },
  };
}

/**
 * The observer where there is no sandbox: a Lambda not given the state machine, a maintenance
 * script. It runs nothing, so a version published there stays pending rather than be cleared
 * unseen. The local runtime brings its own (scripts/local/observer.ts): a child process the
 * Lambdas' bundles have no use for.
 */
function unobserved(log: Logger): Observer {
  return {
    async start(_deps, run) {
      log.warn('no sandbox here to observe a version: it stays pending', { ...run });
    },
  };
}

let aws: Deps | undefined;

/**
 * The AWS composition root: a Lambda's parts, from its environment, created once per container
 * and shared by its invocations. The local runtime (scripts/local/runtime.ts) is the other root.
 */
export function awsDeps(): Deps {
  aws ??= createDeps(configFromEnv());
  return aws;
}
