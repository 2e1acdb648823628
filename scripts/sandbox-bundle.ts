import { copyFileSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { SANDBOX_CONTEXT_DIR } from '../infra/lambdas.ts';
import { embedGrammar, REQUIRE_BANNER } from './esm-bundle.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Writes the sandbox image's build context under dist/sandbox: the Dockerfile, the task's entry
 * (functions/sandbox-task/task-main.ts) bundled into one file `task.mjs`, and the sandbox's first
 * process beside it at `inside/orchestrator.py`, where the runner looks for it (next to its own
 * module). One file, not chunks: the runner finds the orchestrator relative to the bundle.
 * A small folder of its own, so the CDK hashes and stages only what the image is made of.
 */
export async function buildSandboxContext(outRoot = root): Promise<{ dir: string; bytes: number }> {
  const dir = join(outRoot, SANDBOX_CONTEXT_DIR);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'inside'), { recursive: true });
  await build({
    absWorkingDir: root,
    entryPoints: [join(root, 'functions/sandbox-task/task-main.ts')],
    outfile: join(dir, 'task.mjs'),
    bundle: true,
    plugins: [embedGrammar()],
    format: 'esm',
    platform: 'node',
    // The image's Node (functions/sandbox/Dockerfile).
    target: 'node20',
    mainFields: ['module', 'main'],
    minify: true,
    external: ['bowser'],
    banner: { js: REQUIRE_BANNER },
    logLevel: 'warning',
  });
  copyFileSync(join(root, 'functions/sandbox/inside/orchestrator.py'), join(dir, 'inside/orchestrator.py'));
  copyFileSync(join(root, 'functions/sandbox/Dockerfile'), join(dir, 'Dockerfile'));
  return { dir, bytes: statSync(join(dir, 'task.mjs')).size };
}
