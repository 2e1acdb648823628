import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BundleReport, buildLambdas, bundleEntry, COLD_START_BUDGET_BYTES } from '../lambda-bundles.ts';
import { percentile, round, type Row } from './table.ts';

/**
 * The Lambda bundles: bytes a cold start loads (budget 640 KB), bytes deployed, and the time to
 * import the bundle in a fresh Node process (budget 100 ms), the part of a cold start the code
 * controls, with the production environment (no local endpoints). The bundles are measured in
 * turns, one import each per round after a warm-up round, so a change in the machine's load
 * falls on all of them alike; the median and the fastest round are printed, the latter being
 * the figure least disturbed by whatever else the machine is doing.
 *
 * Beside each Lambda, the floor: scripts/bench/cold-floor.ts, Hono and the DynamoDB client and
 * nothing of ours, bundled alike and measured in the same rounds. What a Lambda takes above it
 * is what its own code costs at import.
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

const FLOOR = 'floor (Hono + DynamoDB client)';

export async function benchBundles(): Promise<Row[]> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const floor: BundleReport = await bundleEntry(FLOOR, fileURLToPath(new URL('cold-floor.ts', import.meta.url)), `${root}dist/bench/cold-floor`);
  const bundles = await buildLambdas();
  const measured = [floor, ...bundles];
  const times = new Map(measured.map((b) => [b.name, [] as number[]]));
  for (let roundNo = 0; roundNo <= ROUNDS; roundNo++) {
    for (const bundle of measured) {
      const ms = importMs(bundle.file);
      if (roundNo > 0) times.get(bundle.name)!.push(ms);
    }
  }
  const p50Of = (name: string) =>
    round(
      percentile(
        times.get(name)!.sort((a, b) => a - b),
        50,
      ),
    );
  const floorP50 = p50Of(FLOOR);
  const floorRows: Row[] = [
    { section: 'bundles', metric: `${FLOOR} loaded at cold start`, value: round(floor.loadedBytes / 1024), unit: 'KB' },
    { section: 'bundles', metric: `${FLOOR} cold import p50`, value: floorP50, unit: 'ms', target: '≤ 100', ok: floorP50 <= 100 },
  ];
  return floorRows.concat(
    bundles.flatMap((bundle) => {
      const sorted = times.get(bundle.name)!;
      const loadedKb = round(bundle.loadedBytes / 1024);
      const p50 = p50Of(bundle.name);
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
        {
          section: 'bundles',
          metric: `${bundle.name} cold import p50`,
          value: p50,
          unit: 'ms',
          target: '≤ 100',
          ok: p50 <= 100,
          peer: floorP50,
          peerName: 'floor',
          ratio: round(p50 / floorP50, 2),
        },
        { section: 'bundles', metric: `${bundle.name} cold import fastest`, value: round(sorted[0]!), unit: 'ms' },
      ];
    }),
  );
}
