import { execFileSync } from 'node:child_process';
import { hasRunnableContent } from '#core/behaviour/plan';
import { type Verdict, worseVerdict } from '#core/scan/finding';
import { scanFiles, type ScanFile } from '#core/scan/scan';
import { observeVersion } from '#functions/sandbox/observe';

/**
 * The verdict a version comes to once it has been scanned and, when it has runnable content,
 * observed in the sandbox (functions/sandbox/observe.ts): the worse of the two, as the trust
 * pipeline judges (docs/scanning.md, "Behaviour": the static engine's critical findings stay
 * malicious, what the run did is judged on its evidence). Runs are what cost: a sample the scan
 * already refuses, or one with nothing to run, is not observed (a run could not change it).
 */

export interface Combined {
  scan: Verdict;
  /** Absent when the version was not run. */
  observed?: { verdict: Verdict; ms: number; why: string };
  verdict: Verdict;
}

/** Whether the sandbox can run here (bubblewrap and strace installed), unless SKILLPRESS_BENCH_SANDBOX=0 turns it off. */
export function sandboxAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.SKILLPRESS_BENCH_SANDBOX === '0') return false;
  try {
    execFileSync('sh', ['-c', 'command -v bwrap && command -v strace'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The combined verdict of one version; `always` observes it even when the scan alone decides (to time the runs). */
export async function combinedVerdict(files: readonly ScanFile[], sandbox: boolean, always = false): Promise<Combined> {
  const scan = scanFiles(files).verdict;
  if (!sandbox || !hasRunnableContent(files) || (scan === 'malicious' && !always)) return { scan, verdict: scan };
  const start = performance.now();
  const observation = await observeVersion(files);
  const ms = performance.now() - start;
  const why =
    observation.evidence[0]?.message ??
    (observation.budgetsHit.length ? `budgets hit: ${observation.budgetsHit.map((b) => b.budget).join(', ')}` : 'nothing judged');
  return { scan, observed: { verdict: observation.verdict, ms, why }, verdict: worseVerdict(scan, observation.verdict) };
}
