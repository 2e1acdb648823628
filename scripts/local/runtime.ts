import type { Hono } from 'hono';
import type { Config } from '#functions/platform/config';
import { DeliveryCache } from '#functions/services/delivery-cache';
import { BlobCache } from '#functions/content/blob-cache';
import { createS3 } from '#functions/content/s3-client';
import { BLOB_CACHE_BYTES, createDeps, type Deps } from '#functions/platform/composition';
import { createApp } from '#functions/http/app';
import { allRoutes } from '#functions/http/all-routes';
import type { AppEnv } from '#functions/http/env';
import { createLogger, errorFields } from '#functions/platform/log';
import { newKeyPem } from '#functions/platform/signer';
import type { RebuilderOptions, RebuildReport } from '#functions/rebuild/rebuilder';
import { countCdnLog } from '#functions/services/install-log';
import { LocalCdn } from '#scripts/local/cdn';
import { BackgroundThread } from './background/thread.ts';
import { ScanThread } from './scan/scan-thread.ts';
import { type BackgroundWork, backgroundWork } from './background/work.ts';
import { LocalSiteBuilder, type LocalSiteOptions } from './site-builder.ts';
import { localObserver } from './observer.ts';

/**
 * The one-machine service: every route group, the rebuild after each committed write (on AWS a
 * DynamoDB stream does this), and the CDN emulation serving the static bucket. `npm start`, the
 * HTTP tests and the benchmarks all run exactly this. With `site`, the Astro site is rebuilt
 * (debounced, in a child process) after the registry files change.
 *
 * The rebuilds and the install-count writes run either in this thread (`inline`: the tests,
 * which swap in failing storage or a fixed clock through `overrides`) or in a background thread
 * with its own SDK clients (`thread`: `npm start` and the benchmarks), which keeps their storage
 * calls off the thread that answers requests. Both run the same Rebuilder, trigger and counter.
 * With the background thread, publishing's scans run in a thread of their own too
 * (scripts/local/scan/scan-thread.ts): a scan of a large, strange version is seconds of CPU.
 */
export interface LocalRuntime {
  deps: Deps;
  app: Hono<AppEnv>;
  /** The CloudFront stand-in: the app's routes reach it, and the HTTP server hands it plain static reads first. */
  cdn: LocalCdn;
  /** The site rebuild, when this runtime serves the site. */
  site?: LocalSiteBuilder;
  /** Resolves once every committed write so far has been rebuilt (registry files, not the site) and every delivery counted. */
  idle(): Promise<void>;
  /**
   * The full rebuild from DynamoDB (the repair path), by the same Rebuilder as the incremental
   * ones; the skills it could not rebuild are retried as failed incremental rebuilds are.
   */
  rebuildAll(): Promise<RebuildReport>;
  /** Stops background work: retries of failed rebuilds, and the background thread. Call `idle()` first to lose nothing. */
  close(): Promise<void>;
  /**
   * Tells the runtime the origin its HTTP server listens on (known only once it listens, with
   * port 0): without `SITE_ORIGIN`, it is this registry's configured origin (`configuredOrigin`).
   */
  listening(origin: string): void;
}

export interface LocalRuntimeOptions {
  site?: LocalSiteOptions;
  /** Where rebuilds and count writes run (see above); `inline` unless asked. */
  background?: 'inline' | 'thread';
  /** The background thread's log level (its logger cannot be passed in `overrides`). */
  logLevel?: string;
  /** The background thread died (a crash of the service): its pending work is lost. */
  onBackgroundFailure?: (error: Error) => void;
  /** For the Rebuilder, in whichever thread it runs (see {@link RebuilderOptions}). */
  rebuilder?: RebuilderOptions;
  /** The longest wait between retries of a skill whose rebuild fails: 30 s unless set (tests shorten it). */
  maxRebuildBackoffMs?: number;
}

/** How long delivery keeps a skill's META when nothing in this process changed it. */
const LOCAL_SKILL_TTL_MS = 60_000;

export function createLocalRuntime(given: Config, overrides: Partial<Omit<Deps, 'config' | 'changed'>> = {}, options: LocalRuntimeOptions = {}): LocalRuntime {
  const config = withSigningKey(given);
  let background: BackgroundWork | undefined;
  let thread: BackgroundThread | undefined;
  if (options.background === 'thread') {
    thread = new BackgroundThread(config, {
      logLevel: options.logLevel,
      rebuilder: options.rebuilder,
      maxRebuildBackoffMs: options.maxRebuildBackoffMs,
      onWrite: (key, body) => {
        cdn.wrote(key, body);
        deps.staticStore.heard(key, body);
      },
      onRebuilt: () => site?.changed(),
      onFailure: (error) => {
        deps.log.error('background thread failed', errorFields(error));
        options.onBackgroundFailure?.(error);
      },
    });
  }
  // Every publish goes through this process and forgets the skills it changed, so delivery may
  // keep a skill's META far longer than a deliver Lambda, which never hears of other writes.
  const s3 = overrides.s3 ?? createS3(config);
  // Content a publish stored goes to the thread with the change, before it: no read back from S3.
  const blobs = thread
    ? { s3, bucket: config.contentBucket, cache: new ForwardingBlobCache(BLOB_CACHE_BYTES, (sha256, bytes) => thread.stored(sha256, bytes)) }
    : undefined;
  const scans = options.background === 'thread' && !overrides.scanner ? new ScanThread() : undefined;
  const log = overrides.log ?? createLogger();
  const deps = createDeps(config, {
    s3,
    log,
    observer: overrides.observer ?? localObserver(log),
    ...(scans ? { scanner: scans.scan } : {}),
    delivery: new DeliveryCache(LOCAL_SKILL_TTL_MS),
    ...(thread ? { downloads: thread, blobs } : {}),
    ...overrides,
    changed: (ids) => background!.changed(ids),
    failingRebuilds: () => background!.failing(),
  });
  const site = options.site
    ? new LocalSiteBuilder(deps.staticStore, config, deps.log, { beforeBuild: () => background!.publishInstallCounts(), ...options.site })
    : undefined;
  background = thread ?? backgroundWork(deps, { rebuilt: () => site?.changed() }, options.rebuilder, options.maxRebuildBackoffMs);
  // Discovery downloads are counted from the CDN's log, as on AWS (functions/services/install-log.ts).
  const cdn = new LocalCdn(deps.staticStore, {
    ...(site ? { sitePending: () => !site.hasSite } : {}),
    log: (line) => countCdnLog(deps.downloads, [line]),
  });
  const app = createApp(deps, [...allRoutes, cdn.routes]);
  return {
    deps,
    app,
    cdn,
    site,
    idle: () => background.idle(),
    rebuildAll: () => background.rebuildAll(),
    close: async () => {
      await deps.observer.close?.();
      await background.close();
      await scans?.close();
    },
    listening: (origin) => {
      deps.config.listeningOrigin = origin;
    },
  };
}

/**
 * The config with a signing key both threads share: the one it names, else a key made now and
 * handed to the background thread with the rest of the config (a runtime without DATA_DIR: tests).
 */
function withSigningKey(config: Config): Config {
  const { signing } = config;
  if (signing.kmsKeyId !== undefined || signing.keyFile !== undefined || signing.inlineKey !== undefined) return config;
  return { ...config, signing: { ...signing, inlineKey: newKeyPem() } };
}

/** The blob cache of the request thread, which also hands what a publish stored to the background thread. */
class ForwardingBlobCache extends BlobCache {
  constructor(
    maxBytes: number,
    private readonly forward: (sha256: string, bytes: Uint8Array) => void,
  ) {
    super(maxBytes);
  }

  override stored(sha256: string, bytes: Uint8Array): void {
    super.stored(sha256, bytes);
    this.forward(sha256, bytes);
  }
}
