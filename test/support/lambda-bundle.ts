import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { bundleDir } from '../../infra/lambdas.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const runner = fileURLToPath(new URL('./invoke-bundle.mjs', import.meta.url));

export interface Invocation<R> {
  importMs: number;
  results: ({ ok: R } | { threw: string })[];
}

/**
 * Runs the built bundle of Lambda `name` in a fresh Node process with exactly `env` (plus PATH),
 * as the Lambda runtime would, and invokes its handler with each event in order.
 */
export async function invokeBundle<R = APIGatewayProxyStructuredResultV2>(
  name: string,
  events: unknown[],
  env: Record<string, string>,
): Promise<Invocation<R>> {
  const dir = mkdtempSync(join(tmpdir(), 'skillpress-invoke-'));
  try {
    const eventsFile = join(dir, 'events.json');
    const resultsFile = join(dir, 'results.json');
    writeFileSync(eventsFile, JSON.stringify(events));
    const child = spawn(process.execPath, [runner, join(root, bundleDir(name), 'index.mjs'), eventsFile, resultsFile], {
      env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`bundle ${name} exited with ${code}:\n${output}`);
    return JSON.parse(readFileSync(resultsFile, 'utf8')) as Invocation<R>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The handler's result for one event; fails the test if the handler threw. */
export function resultOf<R>(invocation: Invocation<R>, index: number): R {
  const result = invocation.results[index]!;
  if ('threw' in result) throw new Error(`invocation ${index} threw: ${result.threw}`);
  return result.ok;
}
