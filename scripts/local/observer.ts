import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getFiles } from '#functions/content/blobs';
import type { Deps } from '#functions/platform/composition';
import type { Logger } from '#functions/platform/log';
import { type ObservationRun, type Observer, recordFailedRun, recordObservation } from '#functions/services/behaviour';
import { getVersion } from '#functions/store/skills';
import type { Observation } from '#core/behaviour/observation';

/**
 * The observer of `npm start` and the tests, given to the deps by the local runtime (the AWS
 * Lambdas never carry it): each run is a child process
 * (`observe-child.ts`, run from source through tsx, as the sandbox's own files are found beside
 * it) given the version's files from the content store; its observation is recorded when it
 * exits, while the server goes on. Without the sandbox's Debian tools the observer says so once
 * and runs nothing: versions with runnable content stay pending rather than be cleared unseen.
 */

/** The programs the sandbox runs on (scripts/ensure-test-deps.sh installs them). */
const TOOLS = ['/usr/bin/bwrap', '/usr/bin/strace', '/usr/sbin/nft', '/usr/sbin/ip', '/usr/bin/nsenter', '/usr/bin/faketime', '/usr/bin/python3'];
/**
 * The child's source, found from the repository root: this module sits two folders below it, as
 * the bundle of `npm start` (dist/server/) does, so the path is the same bundled or not.
 */
const CHILD = fileURLToPath(new URL('../../functions/sandbox/observe-child.ts', import.meta.url));
/** The repository root, where the child runs: `--import tsx` is resolved from there. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** A run takes two passes of at most a minute each; a child past this is stuck, and counts as a run that did not finish. */
const CHILD_TIMEOUT_MS = 5 * 60_000;

export function localObserver(log: Logger): Observer {
  const missing = TOOLS.filter((path) => !existsSync(path));
  if (missing.length > 0) {
    log.warn('the behaviour sandbox cannot run here: versions with anything to run stay pending (install its tools with scripts/ensure-test-deps.sh)', {
      missing,
    });
  }
  const running = new Set<ChildProcess>();
  const recording = new Set<Promise<void>>();
  let closed = false;
  return {
    async start(deps: Deps, run: ObservationRun): Promise<void> {
      if (missing.length > 0 || closed) return;
      const item = await getVersion(deps.db, run.skillId, run.version);
      if (!item) return;
      const files = await getFiles(deps.blobs, item.files);
      const input = JSON.stringify(
        files.map((f) => ({ filename: f.filename, base64: Buffer.from(f.bytes).toString('base64'), executable: f.executable === true })),
      );
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
      running.add(child);
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
      // A child that dies early closes its stdin: its exit reports it.
      child.stdin!.on('error', () => {});
      child.stdin!.end(input);
      const timer = setTimeout(() => kill(child), CHILD_TIMEOUT_MS);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        running.delete(child);
        if (closed) return;
        const finished = code === 0 ? parsed(Buffer.concat(out).toString('utf8')) : undefined;
        const why = `the sandbox's process ended with ${signal ?? `code ${code}`}: ${Buffer.concat(err).toString('utf8').trim().split('\n').slice(-1)[0] ?? ''}`;
        const recorded = finished ? recordObservation(deps, { slug: run.slug, version: run.version, observation: finished }) : recordFailedRun(deps, run, why);
        const kept = recorded
          .catch((error: unknown) => log.error('could not record the observation of a version', { ...run, error: (error as Error).message }))
          .finally(() => recording.delete(kept));
        recording.add(kept);
      });
    },
    async idle(): Promise<void> {
      while (recording.size > 0) await Promise.all(recording);
    },
    async close(): Promise<void> {
      closed = true;
      await Promise.all(
        [...running].map(
          (child) =>
            new Promise<void>((resolve) => {
              child.once('close', () => resolve());
              kill(child);
            }),
        ),
      );
    },
  };
}

/** Kills the child's whole process group: strace and the sandbox it traces go with it. */
function kill(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function parsed(text: string): Observation | undefined {
  try {
    return JSON.parse(text) as Observation;
  } catch {
    return undefined;
  }
}
