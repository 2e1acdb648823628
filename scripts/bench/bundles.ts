import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { buildLambdas } from '../lambda-bundles.ts';
import { percentile, round, type Row } from './table.ts';

/**
 * The Lambda bundles: bytes a cold start loads (budget 600 KB), bytes deployed, and the time to
 * import the bundle in a fresh Node process (budget 100 ms), the part of a cold start the code
 * controls. Median of several fresh processes after one warm-up, with the production environment
 * (no local endpoints); the fastest run is printed too, the figure least disturbed by whatever
 * else the machine is doing.
 */
const RUNS = 7;
const env = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'eu-west-1',
  TABLE_NAME: 'skillpress',
  CONTENT_BUCKET: 'skillpress-content',
  STATIC_BUCKET: 'skillpress-static',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

export async function benchBundles(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const bundle of await buildLambdas()) {
    const url = pathToFileURL(bundle.file).href;
    const script = `const t = performance.now(); await import(${JSON.stringify(url)}); process.stdout.write(String(performance.now() - t));`;
    const importOnce = () => Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' }));
    importOnce();
    const times = Array.from({ length: RUNS }, importOnce).sort((a, b) => a - b);
    const loadedKb = round(bundle.loadedBytes / 1024);
    const importMs = round(percentile(times, 50));
    rows.push(
      { section: 'bundles', metric: `${bundle.name} loaded at cold start`, value: loadedKb, unit: 'KB', target: '≤ 600', ok: loadedKb <= 600 },
      { section: 'bundles', metric: `${bundle.name} deployed (${bundle.files} files)`, value: round(bundle.totalBytes / 1024), unit: 'KB' },
      { section: 'bundles', metric: `${bundle.name} cold import p50`, value: importMs, unit: 'ms', target: '≤ 100', ok: importMs <= 100 },
      { section: 'bundles', metric: `${bundle.name} cold import fastest`, value: round(times[0]!), unit: 'ms' },
    );
  }
  return rows;
}
