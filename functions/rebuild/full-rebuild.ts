import type { Deps } from '../platform/composition.ts';
import { type SiteBuildOutcome, triggerSiteBuild } from '../services/site-build.ts';
import { Rebuilder } from './rebuilder.ts';
import { describeNonConforming } from './non-conforming.ts';
import { failureFields, type SkillFailure } from './skill-failure.ts';

export interface FullRebuildResult {
  skills: number;
  written: number;
  /** The skills it could not rebuild; they keep their files and index entries as they were. */
  failed: SkillFailure[];
  site: SiteBuildOutcome;
}

/**
 * The scheduled full rebuild, the safety net under the stream: regenerates every static file
 * from DynamoDB (what a lost or dead-lettered stream batch left stale is repaired here), then
 * asks for a site build. Idempotent, and it writes only files whose bytes changed. A skill it
 * cannot rebuild is logged and listed in the result, and does not fail the run: a retry of the
 * whole run would fail on it again, and everything else is already written.
 */
export async function fullRebuild(deps: Deps): Promise<FullRebuildResult> {
  const started = performance.now();
  const { skills, written, failed, nonConforming } = await new Rebuilder(deps).rebuildAll();
  for (const failure of failed) deps.log.error('full rebuild: a skill failed', failureFields(failure));
  for (const skill of nonConforming)
    deps.log.warn('full rebuild: left out of the discovery index, not a valid Agent Skill', { detail: describeNonConforming(skill) });
  deps.log.info('full rebuild', { skills, written, failed: failed.length, ms: Math.round(performance.now() - started) });
  return { skills, written, failed, site: await triggerSiteBuild(deps) };
}
