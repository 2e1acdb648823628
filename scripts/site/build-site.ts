import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs `astro build` for site/ in a child process: the build is CPU-heavy and must never block
 * the API's event loop, and a child can be stopped (Ctrl-C) and reniced. The data comes from
 * SKILLPRESS_DATA (see site/src/data/source.ts); output and cache go where asked.
 */
export const SITE_DIR = fileURLToPath(new URL('../../site/', import.meta.url));
/**
 * Where builds that are uploaded and thrown away put their output: inside site/, because the
 * server chunks Astro stages there import packages from the project's node_modules.
 */
export const BUILDS_DIR = join(SITE_DIR, '.builds');
// astro/astro.js is not among the package's exports; the bin file sits beside package.json.
const ASTRO_BIN = fileURLToPath(new URL('../../node_modules/astro/astro.js', import.meta.url));

export interface SiteBuildOptions {
  /** `s3://<bucket>` or an http(s) origin; unset builds a site without skills. */
  data?: string;
  /** Under site/ (see BUILDS_DIR), one per build when builds may run at the same time. */
  outDir: string;
  /** Astro's cacheDir, also holding the registry documents between builds (incremental reads). */
  cacheDir: string;
  /** Extra environment for the build (S3_ENDPOINT, AWS_REGION, …). */
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** Lower the build's CPU priority (the local runtime keeps the API responsive this way). */
  nice?: boolean;
}

export interface SiteBuildResult {
  pages: number;
  ms: number;
}

export async function buildSite(options: SiteBuildOptions): Promise<SiteBuildResult> {
  const started = performance.now();
  const child = spawn(process.execPath, [ASTRO_BIN, 'build', '--root', SITE_DIR], {
    // Astro stages its server chunks in the output folder when that is under the working
    // directory, else in ./.astro/ there, shared by every build: outDir should be under site/.
    cwd: SITE_DIR,
    env: {
      ...process.env,
      ...options.env,
      SKILLPRESS_DATA: options.data ?? '',
      SKILLPRESS_SITE_OUT: options.outDir,
      SKILLPRESS_SITE_CACHE: options.cacheDir,
      ASTRO_TELEMETRY_DISABLED: '1',
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    signal: options.signal,
  });
  if (options.nice && child.pid) {
    try {
      setPriority(child.pid, 10);
    } catch {
      // Not allowed here: the build just runs at normal priority.
    }
  }
  // Astro logs a line per page; only the tail matters, for the error message.
  const tail: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) tail.push(line);
    if (tail.length > 400) tail.splice(0, tail.length - 200);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exit) => resolve(exit));
  });
  const output = tail.join('\n');
  if (code !== 0) throw new Error(`astro build exited with ${code}:\n${tail.slice(-30).join('\n')}`);
  const pages = Number(/(\d+) page\(s\) built/.exec(output)?.[1] ?? NaN);
  return { pages, ms: Math.round(performance.now() - started) };
}
