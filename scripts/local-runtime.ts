import type { Hono } from 'hono';
import type { Config } from '#functions/config';
import { DeliveryCache } from '#functions/delivery-cache';
import { createDeps, type Deps } from '#functions/deps';
import { createApp } from '#functions/http/app';
import { allRoutes } from '#functions/http/all-routes';
import type { AppEnv } from '#functions/http/env';
import { LocalRebuildTrigger } from '#functions/rebuild/local-trigger';
import { Rebuilder } from '#functions/rebuild/rebuilder';
import { LocalCdn } from '#functions/static/local-cdn';
import { LocalSiteBuilder, type LocalSiteOptions } from './site/local-site-builder.ts';

/**
 * The single-process service: every route group, the rebuild run in-process after each
 * committed write (on AWS a DynamoDB stream does this), and the CDN emulation serving the static
 * bucket. `npm start`, the HTTP tests and the benchmarks all run exactly this. With `site`, the
 * Astro site is rebuilt (debounced, in a child process) after the registry files change.
 */
export interface LocalRuntime {
  deps: Deps;
  app: Hono<AppEnv>;
  rebuilder: Rebuilder;
  trigger: LocalRebuildTrigger;
  /** The site rebuild, when this runtime serves the site. */
  site?: LocalSiteBuilder;
  /** Resolves once every committed write so far has been rebuilt (registry files, not the site) and every delivery counted. */
  idle(): Promise<void>;
}

export interface LocalRuntimeOptions {
  site?: LocalSiteOptions;
}

/** How long delivery keeps a skill's META when nothing in this process changed it. */
const LOCAL_SKILL_TTL_MS = 60_000;

export function createLocalRuntime(config: Config, overrides: Partial<Omit<Deps, 'config' | 'changed'>> = {}, options: LocalRuntimeOptions = {}): LocalRuntime {
  let trigger: LocalRebuildTrigger | undefined;
  // Every publish goes through this process and forgets the skills it changed, so delivery may
  // keep a skill's META far longer than a deliver Lambda, which never hears of other writes.
  const deps = createDeps(config, { delivery: new DeliveryCache(LOCAL_SKILL_TTL_MS), ...overrides, changed: (ids) => trigger!.enqueue(ids) });
  const rebuilder = new Rebuilder(deps);
  const site = options.site ? new LocalSiteBuilder(deps.staticStore, config, deps.log, options.site) : undefined;
  trigger = new LocalRebuildTrigger(async (ids) => {
    await rebuilder.rebuild(ids);
    site?.changed();
  }, deps.log);
  const cdn = new LocalCdn(deps.staticStore);
  const app = createApp(deps, [...allRoutes, cdn.routes]);
  return { deps, app, rebuilder, trigger, site, idle: async () => {
      await trigger.idle();
      await deps.downloads.written();
    },
  };
}
