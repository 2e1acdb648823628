import { mkdirSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '#functions/platform/config';
import { errorFields, type Logger } from '#functions/platform/log';
import type { StaticStore } from '#functions/content/static-store';
import { BUILDS_DIR, buildSite } from '../site/build-site.ts';
import { DebouncedJob } from './debounced-job.ts';
import { siteSourceHash } from '../site/site-sources.ts';
import { readSiteManifest, uploadSite } from '../site/upload-site.ts';

/**
 * The local runtime's site rebuild (on AWS a workflow does this): after writes have been
 * rebuilt into registry files, the Astro site is rebuilt from the static bucket, in a child
 * process at low priority, and the pages that changed are uploaded back into the bucket.
 * Debounced, so a burst of publishes costs one build; meanwhile pages of new skills render in
 * the browser from their registry JSON. A failed build is logged and left for the next write.
 */
export interface LocalSiteOptions {
  /** Holds Astro's cache and the registry documents kept between builds (the output goes to site/.builds). */
  workDir: string;
  /** The pause in writes a build waits for (default 2 s)… */
  debounceMs?: number;
  /** …but never longer than this after the first unbuilt write (default 15 s). */
  maxWaitMs?: number;
  /** Build at low CPU priority, so the API stays responsive (default true). */
  nice?: boolean;
  /** Runs before each build: what the build reads besides the registry (the public install counts). */
  beforeBuild?: () => Promise<void>;
}

export interface SiteBuildReport {
  /** What `beforeBuild` took (the install counts). */
  beforeBuildMs: number;
  pages: number;
  buildMs: number;
  files: number;
  uploaded: number;
  uploadMs: number;
}

export class LocalSiteBuilder {
  private readonly job: DebouncedJob;
  private readonly abort = new AbortController();
  private sequence = 0;
  private readonly removals = new Set<Promise<void>>();
  /** The last successful build, for logs, tests and the benchmark. */
  last?: SiteBuildReport;
  builds = 0;
  /**
   * Whether the bucket holds a complete site: an upload finished, in this run or an earlier one
   * (its manifest is written last). Until then the CDN answers site paths with a pending page.
   */
  hasSite = false;

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
    this.removeAbandonedBuilds();
    const manifest = await readSiteManifest(this.store);
    this.hasSite = manifest !== undefined;
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

  /** Builds and uploads now (after a running build), for benchmarks; undefined when it failed. */
  async buildNow(): Promise<SiteBuildReport | undefined> {
    const before = this.builds;
    this.job.request(0);
    await this.job.idle();
    return this.builds > before ? this.last : undefined;
  }

  /** Stops the running build (its child process) and cancels pending ones. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.job.stop();
    await Promise.all(this.removals);
  }

  private async buildAndUpload(): Promise<void> {
    // A fresh folder per build, removed after the upload: builds of several runtimes in one
    // checkout never share one, and Astro never has to empty 10,000 folders before building.
    const outDir = join(BUILDS_DIR, `${process.pid}-${++this.sequence}`);
    const cacheDir = join(this.options.workDir, 'cache');
    mkdirSync(cacheDir, { recursive: true });
    const sourceHash = siteSourceHash();
    try {
      // Counts that could not be refreshed stay as they were; the build goes on.
      const before = performance.now();
      await this.options.beforeBuild?.().catch((error: unknown) => this.log.warn('install counts not refreshed for the site build', errorFields(error)));
      const beforeBuildMs = Math.round(performance.now() - before);
      const build = await buildSite({
        data: `s3://${this.config.staticBucket}`,
        outDir,
        cacheDir,
        env: { S3_ENDPOINT: this.config.s3Endpoint, AWS_REGION: this.config.region },
        signal: this.abort.signal,
        nice: this.options.nice ?? true,
      });
      const upload = await uploadSite(this.store, outDir, { sourceHash });
      this.hasSite = true;
      this.last = { beforeBuildMs, pages: build.pages, buildMs: build.ms, files: upload.files, uploaded: upload.uploaded, uploadMs: upload.ms };
      this.builds += 1;
    } finally {
      this.remove(outDir);
    }
    this.log.info('site rebuilt', { ...this.last });
  }

  /** Build folders of runtimes that died before removing them. */
  private removeAbandonedBuilds(): void {
    let names: string[] = [];
    try {
      names = readdirSync(BUILDS_DIR);
    } catch {
      return;
    }
    for (const name of names) {
      const pid = Number(name.split('-')[0]);
      if (pid !== process.pid && !isAlive(pid)) this.remove(join(BUILDS_DIR, name));
    }
  }

  /** Removes a build folder in the background; stop() waits for it. */
  private remove(dir: string): void {
    const removal = rm(dir, { recursive: true, force: true })
      .catch((error: unknown) => this.log.warn('could not remove a site build folder', errorFields(error)))
      .finally(() => this.removals.delete(removal));
    this.removals.add(removal);
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
