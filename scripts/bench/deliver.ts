import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { runPool } from './load.ts';
import { signInWithKey, startBenchStack } from './stack.ts';
import { round, type Row } from './table.ts';

const CONNECTIONS = 16;
const REQUESTS = 4000;
const WARMUP = 200;

/** What `autocannon --json` prints, as far as this bench reads it. */
interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  duration: number;
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/**
 * Free delivery over real HTTP: req/s and latency at 16 connections, then the skill's analytics
 * must show exactly as many installs as there were 200s. The load generator (autocannon) runs
 * in its own process so it does not take CPU from the server it measures.
 */
export async function benchDeliver(): Promise<Row[]> {
  const stack = await startBenchStack();
  try {
    const { key, cookie } = await signInWithKey(stack.baseUrl, 'bench');
    const files = [
      { filename: 'SKILL.md', content: `---\nname: bench-delivery\ndescription: benchmark skill\n---\n${'Instructions. '.repeat(200)}` },
      { filename: 'scripts/run.sh', content: '#!/bin/sh\necho hi\n' },
    ];
    const published = await fetch(`${stack.baseUrl}/api/publish`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench delivery', slug: 'bench-delivery', description: 'bench', category: 'bench', files }),
    });
    if (published.status !== 201) throw new Error(`publish → ${published.status} ${await published.text()}`);
    const { id } = (await published.json()) as { id: string };
    const url = `${stack.baseUrl}/api/deliver/${id}?source=cli`;

    // Warm connections, JIT and the embedded services before measuring.
    const warm = await runPool(WARMUP, CONNECTIONS, async () => (await fetch(url)).status);
    if (warm.some((s) => s !== 200)) throw new Error(`warm-up deliveries answered ${[...new Set(warm)].join(', ')}`);

    const run = await autocannon(url, CONNECTIONS, REQUESTS);
    const analytics = await fetch(`${stack.baseUrl}/api/analytics/${id}`, { headers: { cookie } });
    const counted = ((await analytics.json()) as { total: number; bySource: { cli: number } }).bySource.cli;
    const drift = counted - (WARMUP + run['2xx']);
    const failed = run.non2xx + run.errors + run.timeouts;
    return [
      { section: 'deliver', metric: `free delivery req/s (${CONNECTIONS} connections)`, value: round(REQUESTS / run.duration), unit: 'req/s' },
      { section: 'deliver', metric: 'free delivery p50', value: round(run.latency.p50), unit: 'ms' },
      { section: 'deliver', metric: 'free delivery p99', value: round(run.latency.p99), unit: 'ms' },
      { section: 'deliver', metric: `failed of ${REQUESTS}`, value: failed, unit: 'req', target: '= 0', ok: failed === 0 },
      { section: 'deliver', metric: 'installs counted − 200s served', value: drift, unit: 'installs', target: '= 0', ok: drift === 0 },
    ];
  } finally {
    await stack.stop();
  }
}

async function autocannon(url: string, connections: number, amount: number): Promise<AutocannonResult> {
  const bin = createRequire(import.meta.url).resolve('autocannon');
  const { stdout } = await promisify(execFile)(process.execPath, [bin, '--json', '-c', String(connections), '-a', String(amount), url], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as AutocannonResult;
}
