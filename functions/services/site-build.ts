import type { Deps } from '../platform/composition.ts';
import { readSecret } from '../platform/secrets-manager.ts';
import { claimWindow, markPending, readLock, releaseWindow } from '../store/site-build-lock.ts';
import { publishInstallCounts } from './public-installs.ts';

/**
 * The production site build (docs/api.md §11): the Astro site is rebuilt by a GitHub Actions
 * workflow, started with `workflow_dispatch`. Rebuild batches ask for it after every change; the
 * lock item lets at most one dispatch through per interval (5 minutes) and remembers the asks in
 * between, which the scheduled flush then serves; the daily full rebuild asks once more, the
 * safety net for anything both missed. Skill pages newer than the last site build still render
 * from the registry JSON in the browser, so a few minutes' delay costs nothing. Right before a
 * dispatch, the public install counts the build shows are rewritten (`public-installs.ts`).
 *
 * Configured by GITHUB_REPO (owner/name), GITHUB_WORKFLOW (file name or id), GITHUB_WORKFLOW_REF
 * and the token (GITHUB_TOKEN locally, GITHUB_TOKEN_SECRET_NAME on AWS). Without a repository
 * and workflow it does nothing: the local runtime has no workflow to start.
 */

export type SiteBuildOutcome =
  /** The workflow was dispatched. */
  | 'dispatched'
  /** A build ran within the interval; this one is owed and left to the scheduled flush. */
  | 'deferred'
  /** Nothing was owed (flush only). */
  | 'idle'
  /** The dispatch failed; the build stays owed and the window is given back. */
  | 'failed'
  /** No site workflow configured. */
  | 'disabled';

/**
 * Asks for a site build after a rebuild batch. Never throws: the static files are already
 * written, and a build that could not be dispatched stays owed for the next batch or flush.
 */
export async function triggerSiteBuild(deps: Deps): Promise<SiteBuildOutcome> {
  if (!workflowOf(deps)) return 'disabled';
  try {
    const window = await claimWindow(deps.db, deps.clock(), deps.config.siteBuild.intervalSeconds * 1000);
    if (!window.claimed) {
      await markPending(deps.db);
      return 'deferred';
    }
    return await dispatchOrRelease(deps, window.windowEndsAt);
  } catch (error) {
    deps.log.error('site build request failed', { error: (error as Error).name });
    return 'failed';
  }
}

/**
 * The scheduled flush (every few minutes): dispatches a build that was deferred, once its window
 * has ended, so every change reaches the site within two intervals even if no batch follows it.
 */
export async function flushPendingSiteBuild(deps: Deps): Promise<SiteBuildOutcome> {
  if (!workflowOf(deps)) return 'disabled';
  const lock = await readLock(deps.db);
  if (!lock?.pending) return 'idle';
  return triggerSiteBuild(deps);
}

async function dispatchOrRelease(deps: Deps, windowEndsAt: number): Promise<SiteBuildOutcome> {
  const workflow = workflowOf(deps)!;
  // Octokit is loaded with the first dispatch: the rebuilds that import this module rarely make one.
  const { githubApi, statusOfGitHubError } = await import('../platform/octokit.ts');
  try {
    const token = await readSecret(deps.config.siteBuild.token, deps.config.region);
    if (!token) {
      deps.log.warn('site build not dispatched: no GitHub token configured');
      await releaseWindow(deps.db, windowEndsAt);
      return 'failed';
    }
    await refreshInstallCounts(deps);
    await githubApi(deps.config.github, token).request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', {
      owner: workflow.owner,
      repo: workflow.repo,
      workflow_id: workflow.id,
      ref: deps.config.siteBuild.ref,
    });
    deps.log.info('site build dispatched', { repo: `${workflow.owner}/${workflow.repo}`, workflow: workflow.id });
    return 'dispatched';
  } catch (error) {
    // Status only: octokit's error carries the request, Authorization header included.
    deps.log.warn('site build dispatch failed', { status: statusOfGitHubError(error) });
    await releaseWindow(deps.db, windowEndsAt);
    return 'failed';
  }
}

/**
 * The counts the build will show, and the search index's popularity tiers with them; failing to
 * refresh either leaves the last ones and never holds up the build.
 */
async function refreshInstallCounts(deps: Deps): Promise<void> {
  try {
    await publishInstallCounts(deps);
    const { retierSearchIndex } = await import('../rebuild/search-index.ts');
    await retierSearchIndex(deps);
  } catch (error) {
    deps.log.warn('install counts not refreshed for the site build', { error: (error as Error).name });
  }
}

function workflowOf(deps: Deps): { owner: string; repo: string; id: string } | undefined {
  const { repo, workflow } = deps.config.siteBuild;
  const match = /^([^/\s]+)\/([^/\s]+)$/.exec(repo ?? '');
  if (!match || !workflow) return undefined;
  return { owner: match[1]!, repo: match[2]!, id: workflow };
}
