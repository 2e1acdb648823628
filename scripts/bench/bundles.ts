import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BundleReport, buildLambdas, bundleEntry, COLD_START_BUDGET_BYTES } from '../lambda-bundles.ts';
import { percentile, round, type Row } from './table.ts';

/**
 * The Lambda bundles: bytes a cold start loads (budget 680 KiB), bytes deployed, and the time to
 * import the bundle in a fresh Node process, the part of a cold start the code controls, with
 * the production environment (no local endpoints). The bundles are measured in turns, one import
 * each per round after a warm-up round, so a change in the machine's load falls on all of them
 * alike; the median and the fastest round are printed, and the median CPU time of the import
 * (user + system), which the machine's other work disturbs less than the wall time.
 *
 * Beside each Lambda, the floor: scripts/bench/cold-floor.ts, Hono and the DynamoDB client and
 * nothing of ours, bundled alike and measured in the same rounds. What a Lambda takes above it
 * is what its own code costs at import. The target is 100 ms p50, or, where the machine's load
 * slows the floor itself so far that no bundle could meet that, at most {@link FLOOR_MARGIN_MS}
 * above the floor measured in the same rounds.
 */
const ROUNDS = 9;
const TARGET_MS = 100;
/** How far above the floor a Lambda's cold import may be where the load bounds the 100 ms target. */
const FLOOR_MARGIN_MS = 25;
const env = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'eu-west-1',
  TABLE_NAME: 'skillpress',
  CONTENT_BUCKET: 'skillpress-content',
  STATIC_BUCKET: 'skillpress-static',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

/** The wall and CPU (user + system) milliseconds of importing `file` in a fresh Node process. */
function importMs(file: string): { wall: number; cpu: number } {
  const script = `const c = process.cpuUsage(); const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)});
    const wall = performance.now() - t; const { user, system } = process.cpuUsage(c); process.stdout.write(JSON.stringify({ wall, cpu: (user + system) / 1000 }));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' })) as { wall: number; cpu: number };
}

const FLOOR = 'floor (Hono + DynamoDB client)';

export async function benchBundles(): Promise<Row[]> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const floor: BundleReport = await bundleEntry(FLOOR, fileURLToPath(new URL('cold-floor.ts', import.meta.url)), `${root}dist/bench/cold-floor`);
  const bundles = await buildLambdas();
  const measured = [floor, ...bundles];
  const times = new Map(measured.map((b) => [b.name, [] as number[]]));
  const cpu = new Map(measured.map((b) => [b.name, [] as number[]]));
  for (let roundNo = 0; roundNo <= ROUNDS; roundNo++) {
    for (const bundle of measured) {
      const ms = importMs(bundle.file);
      if (roundNo > 0) {
        times.get(bundle.name)!.push(ms.wall);
        cpu.get(bundle.name)!.push(ms.cpu);
      }
    }
  }
  const p50 = (samples: number[]) =>
    round(
      percentile(
        [...samples].sort((a, b) => a - b),
        50,
      ),
    );
  const floorP50 = p50(times.get(FLOOR)!);
  const floorCpu = p50(cpu.get(FLOOR)!);
  const floorRows: Row[] = [
    { section: 'bundles', metric: `${FLOOR} loaded at cold start`, value: round(floor.loadedBytes / 1024), unit: 'KB' },
    { section: 'bundles', metric: `${FLOOR} cold import p50`, value: floorP50, unit: 'ms', target: `≤ ${TARGET_MS}`, ok: floorP50 <= TARGET_MS },
    { section: 'bundles', metric: `${FLOOR} cold import CPU p50`, value: floorCpu, unit: 'ms' },
  ];
  return floorRows.concat(
    bundles.flatMap((bundle) => {
      const wall = times.get(bundle.name)!;
      const loadedKb = round(bundle.loadedBytes / 1024);
      const wallP50 = p50(wall);
      const cpuP50 = p50(cpu.get(bundle.name)!);
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
          value: wallP50,
          unit: 'ms',
          target: `≤ ${TARGET_MS} or floor + ${FLOOR_MARGIN_MS}`,
          ok: wallP50 <= TARGET_MS || wallP50 <= floorP50 + FLOOR_MARGIN_MS,
          peer: floorP50,
          peerName: 'floor',
          ratio: round(wallP50 / floorP50, 2),
        },
        {
          section: 'bundles',
          metric: `${bundle.name} cold import CPU p50`,
          value: cpuP50,
          unit: 'ms',
          peer: floorCpu,
          peerName: 'floor',
          ratio: round(cpuP50 / floorCpu, 2),
        },
        { section: 'bundles', metric: `${bundle.name} cold import fastest`, value: round(Math.min(...wall)), unit: 'ms' },
      ];
    }),
  );
}
