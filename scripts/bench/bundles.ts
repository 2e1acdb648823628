import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { buildLambdas, COLD_START_BUDGET_BYTES } from '../lambda-bundles.ts';
import { percentile, round, type Row } from './table.ts';

/**
 * The Lambda bundles: bytes a cold start loads (budget 640 KB), bytes deployed, and the time to
 * import the bundle in a fresh Node process (budget 100 ms), the part of a cold start the code
 * controls, with the production environment (no local endpoints). The bundles are measured in
 * turns, one import each per round after a warm-up round, so a change in the machine's load
 * falls on all of them alike; the median and the fastest round are printed, the latter being
 * the figure least disturbed by whatever else the machine is doing.
 */
const ROUNDS = 9;
const env = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'eu-west-1',
  TABLE_NAME: 'skillpress',
  CONTENT_BUCKET: 'skillpress-content',
  STATIC_BUCKET: 'skillpress-static',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

function importMs(file: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(String(performance.now() - t));`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' }));
}

export async function benchBundles(): Promise<Row[]> {
  const bundles = await buildLambdas();
  const times = new Map(bundles.map((b) => [b.name, [] as number[]]));
  for (let roundNo = 0; roundNo <= ROUNDS; roundNo++) {
    for (const bundle of bundles) {
      const ms = importMs(bundle.file);
      if (roundNo > 0) times.get(bundle.name)!.push(ms);
    }
  }
  return bundles.flatMap((bundle) => {
    const sorted = times.get(bundle.name)!.sort((a, b) => a - b);
    const loadedKb = round(bundle.loadedBytes / 1024);
    const p50 = round(percentile(sorted, 50));
    return [
      {
        section: 'bundles',
        metric: `${bundle.name} loaded at cold start`,
        value: loadedKb,
        unit: 'KB',
        target: `≤ ${COLD_START_BUDGET_BYTES / 1024}`,
        ok: bundle.loadedBytes <= COLD_START_BUDGET_BYTES,
      },
      { section: 'bundles', metric: `${bundle.name} deployed (${bundle.files} files)`, value: round(bundle.totalBytes / 1024), unit: 'KB' },
      { section: 'bundles', metric: `${bundle.name} cold import p50`, value: p50, unit: 'ms', target: '≤ 100', ok: p50 <= 100 },
      { section: 'bundles', metric: `${bundle.name} cold import fastest`, value: round(sorted[0]!), unit: 'ms' },
    ];
  });
}
