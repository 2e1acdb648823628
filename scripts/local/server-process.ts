import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The local runtime exactly as `npm start` runs it, in a child process: for end-to-end and crash
 * tests, and for benchmarks that must not share an event loop with their load generator.
 */
export interface ServerProcess {
  baseUrl: string;
  child: ChildProcess;
  /** Everything the server printed on stdout and stderr so far. */
  output(): string;
  /** Sends `signal` (SIGINT: a clean stop) and resolves with the exit code once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /**
   * Kills the server without warning, as a crash would, and waits until its embedded DynamoDB
   * and S3 have let go of DATA_DIR too, so a restart on the same folder can open it.
   */
  crash(): Promise<void>;
}

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface StartOptions {
  /** Extra flags for node, e.g. `--cpu-prof` to profile the server under a benchmark. */
  nodeArgs?: string[];
  /** How long a start may take before it is given up: minutes, as a loaded machine starts slowly. */
  startTimeoutMs?: number;
}

export async function startServer(env: Record<string, string>, { nodeArgs = [], startTimeoutMs = 180_000 }: StartOptions = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...nodeArgs, 'scripts/serve.mjs'], {
    cwd: root,
    // The site build costs seconds of CPU that only the site's own tests need: off unless asked.
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', SKILLPRESS_SITE: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), startTimeoutMs);
    child.stdout!.on('data', () => {
      const match = /Skillpress listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    baseUrl,
    child,
    output: () => output,
    stop: (signal = 'SIGINT') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    crash: async () => {
      const embedded = childPids(child.pid!);
      child.kill('SIGKILL');
      await exited;
      // The embedded services exit when their parent's IPC channel closes; wait for that.
      const deadline = Date.now() + 15_000;
      while (embedded.some(isAlive)) {
        if (Date.now() > deadline) throw new Error(`embedded services ${embedded.filter(isAlive).join(', ')} outlived the crashed server`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}

/** The ids of a process's direct children (Linux `ps`). */
export function childPids(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)])
      .toString()
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // ps exits 1 when there are none
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
