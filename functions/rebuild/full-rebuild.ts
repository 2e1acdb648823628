import type { Deps } from '../platform/composition.ts';
import { type SiteBuildOutcome, triggerSiteBuild } from '../services/site-build.ts';
import { Rebuilder } from './rebuilder.ts';

export interface FullRebuildResult {
  skills: number;
  written: number;
  site: SiteBuildOutcome;
}

/**
 * The scheduled full rebuild, the safety net under the stream: regenerates every static file
 * from DynamoDB (what a lost or dead-lettered stream batch left stale is repaired here), then
 * asks for a site build. Idempotent, and it writes only files whose bytes changed.
 */
export async function fullRebuild(deps: Deps): Promise<FullRebuildResult> {
  const started = performance.now();
  const { skills, written } = await new Rebuilder(deps).rebuildAll();
  deps.log.info('full rebuild', { skills, written, ms: Math.round(performance.now() - started) });
  return { skills, written, site: await triggerSiteBuild(deps) };
}
