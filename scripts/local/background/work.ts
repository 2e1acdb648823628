import type { FailingRebuild } from '#core/schemas';
import type { Deps } from '#functions/platform/composition';
import { LocalRebuildTrigger, type LocalRebuildTriggerOptions } from '#scripts/local/rebuild-trigger';
import { type RebuildReport, Rebuilder, type RebuilderOptions } from '#functions/rebuild/rebuilder';
import { rebuildInShards, shardsFromEnv } from '../rebuild/shards.ts';
import { retierSearchIndex } from '#functions/rebuild/search-index';
import { publishInstallCounts, refreshInstallCounts } from '#functions/services/public-installs';

/**
 * The local runtime's background work: the rebuilds that follow committed writes (coalesced by
 * the trigger, each skill retried until it succeeds) and the install counts `deps.downloads`
 * writes. The runtime runs it in its own thread (`inline`) or in the background thread's worker;
 * both build it here, so they behave alike.
 */
export interface BackgroundWork {
  /** Skills a committed write changed. */
  changed(ids: string[]): void;
  /** Every change named so far is rebuilt and every count added so far written. */
  idle(): Promise<void>;
  /**
   * The full rebuild, by the same Rebuilder as the incremental ones. The skills it could not
   * rebuild are in its report and go on to the trigger, which retries them and reports them as
   * failing.
   */
  rebuildAll(): Promise<RebuildReport>;
  /** The skills whose rebuild keeps failing (see {@link LocalRebuildTrigger.failing}). */
  failing(): FailingRebuild[];
  /** Rewrites the public install counts, for the site build about to start, and re-tiers the search index by them. */
  publishInstallCounts(): Promise<void>;
  /** Stops retrying failed rebuilds. */
  close(): Promise<void>;
}

/** What the background work tells its runtime. */
export interface BackgroundEvents {
  /** An index run succeeded (the site reads the catalog). */
  rebuilt(): void;
  /** The failing skills changed (the background thread sends them to the request thread). */
  failingChanged?(failing: FailingRebuild[]): void;
}

/**
 * See {@link LocalRebuildTriggerOptions}. Under a stream of publishes one at a time (1,000
 * skills, measured A/B), rewriting the indexes every 500 ms instead of every 100 ms took CPU per
 * publish from 43.8 to 36.0 ms and the rate from 40.7 to 49.1/s: each index run costs ~25 ms of
 * CPU across the processes (the lock's two writes, both documents serialised, signed, sent and
 * stored), whatever it patches.
 */
const INDEX_INTERVAL_MS = 100;
const BURST_INDEX_INTERVAL_MS = 500;

/** The background work over `deps`; `maxRebuildBackoffMs` as {@link LocalRebuildTriggerOptions.maxBackoffMs}. */
export function backgroundWork(deps: Deps, events: BackgroundEvents, rebuilderOptions: RebuilderOptions = {}, maxRebuildBackoffMs?: number): BackgroundWork {
  const rebuilder = new Rebuilder(deps, rebuilderOptions);
  const trigger = new LocalRebuildTrigger(
    {
      files: async (ids) => {
        const { states, failed } = await rebuilder.rebuildFiles(ids);
        return { rebuilt: new Map(states.map((state) => [state.skill.id, state])), failed };
      },
      indexes: async (states) => {
        const failed = await rebuilder.rebuildIndexes(states);
        events.rebuilt();
        return failed;
      },
    },
    deps.log,
    {
      indexIntervalMs: INDEX_INTERVAL_MS,
      burstIndexIntervalMs: BURST_INDEX_INTERVAL_MS,
      maxBackoffMs: maxRebuildBackoffMs,
      onFailingChanged: events.failingChanged,
    },
  );
  // The public install counts on a schedule, as EventBridge runs the public-installs Lambda on AWS:
  // installs alone start no site build, so without it the counts would wait for the next write.
  const refresh = setInterval(() => {
    refreshInstallCounts(deps).catch((error: unknown) => deps.log.warn('public install counts not refreshed', { error: (error as Error).name }));
  }, deps.config.publicInstallsIntervalSeconds * 1000);
  refresh.unref();
  return {
    changed: (ids) => trigger.enqueue(ids),
    idle: async () => {
      await trigger.idle();
      await deps.downloads.written();
    },
    rebuildAll: async () => {
      // SKILLPRESS_REBUILD_SHARDS > 1: the shards in threads of their own, as the full rebuild fans out on AWS.
      const report = await rebuildInShards(rebuilder, deps.config, shardsFromEnv());
      trigger.retry(report.failed);
      return report;
    },
    failing: () => trigger.failing(),
    publishInstallCounts: async () => {
      await publishInstallCounts(deps);
      await retierSearchIndex(deps, await rebuilder.search());
    },
    close: async () => {
      clearInterval(refresh);
      trigger.stop();
    },
  };
}
