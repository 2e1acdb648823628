import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '#functions/config';
import { errorFields, type Logger } from '#functions/log';
import type { StaticStore } from '#functions/static/static-store';
import { buildSite } from './build-site.ts';
import { DebouncedJob } from './debounced-job.ts';
import { siteSourceHash } from './site-sources.ts';
import { readSiteManifest, uploadSite } from './upload-site.ts';

/**
 * The local runtime's site rebuild (on AWS a workflow does this): after writes have been
 * rebuilt into registry files, the Astro site is rebuilt from the static bucket, in a child
 * process at low priority, and the pages that changed are uploaded back into the bucket.
 * Debounced, so a burst of publishes costs one build; meanwhile pages of new skills render in
 * the browser from their registry JSON. A failed build is logged and left for the next write.
 */
export interface LocalSiteOptions {
  /** Holds the build output and Astro's cache (the skills collection, kept between builds). */
  workDir: string;
  /** The pause in writes a build waits for (default 2 s)… */
  debounceMs?: number;
  /** …but never longer than this after the first unbuilt write (default 15 s). */
  maxWaitMs?: number;
}

export interface SiteBuildReport {
  pages: number;
  buildMs: number;
  files: number;
  uploaded: number;
  uploadMs: number;
}

export class LocalSiteBuilder {
  private readonly job: DebouncedJob;
  private readonly abort = new AbortController();
  /** The last successful build, for logs, tests and the benchmark. */
  last?: SiteBuildReport;
  builds = 0;

  constructor(
    private readonly store: StaticStore,
    private readonly config: Config,
    private readonly log: Logger,
    private readonly options: LocalSiteOptions,
  ) {
    const debounceMs = options.debounceMs ?? 2000;
    this.job = new DebouncedJob(() => this.buildAndUpload(), {
      debounceMs,
      maxWaitMs: Math.max(debounceMs, options.maxWaitMs ?? 15_000),
      onError: (error) => log.error('site build failed', errorFields(error)),
    });
  }

  /** Builds at once when the bucket holds no site, or one built from other sources. */
  async start(): Promise<void> {
    const manifest = await readSiteManifest(this.store);
    if (manifest?.sourceHash === siteSourceHash()) return;
    this.log.info(manifest ? 'site sources changed; rebuilding the site' : 'no site yet; building it');
    this.job.request(0);
  }

  /** Notes that the registry files changed; the site is rebuilt after the debounce. */
  changed(): void {
    this.job.request();
  }

  /** Resolves when no build is pending or running. */
  idle(): Promise<void> {
    return this.job.idle();
  }

  /** Stops the running build (its child process) and cancels pending ones. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.job.stop();
  }

  private async buildAndUpload(): Promise<void> {
    const outDir = join(this.options.workDir, 'dist');
    const cacheDir = join(this.options.workDir, 'cache');
    mkdirSync(cacheDir, { recursive: true });
    const sourceHash = siteSourceHash();
    const build = await buildSite({
      data: `s3://${this.config.staticBucket}`,
      outDir,
      cacheDir,
      env: { S3_ENDPOINT: this.config.s3Endpoint, AWS_REGION: this.config.region },
      signal: this.abort.signal,
      nice: true,
    });
    const upload = await uploadSite(this.store, outDir, { sourceHash });
    this.last = { pages: build.pages, buildMs: build.ms, files: upload.files, uploaded: upload.uploaded, uploadMs: upload.ms };
    this.builds += 1;
    this.log.info('site rebuilt', { ...this.last });
  }
}
