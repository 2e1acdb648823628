import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

/**
 * The load generator of the comparison benchmark, run in its own process (see load-run.ts) so it
 * never shares an event loop with a server it measures. Reads a {@link LoadPlan} from the JSON
 * file named by its argument, drives autocannon over the plan's paths in order (each connection
 * takes the next path), and prints a {@link LoadResult} as JSON. Latencies are kept exactly, not
 * in autocannon's 1 ms buckets, since the fast side answers in well under a millisecond.
 */
export interface LoadPlan {
  baseUrl: string;
  paths: string[];
  connections: number;
  /** How long to run; or, with `amount`, how many requests to send (each one answered). */
  seconds: number;
  amount?: number;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  /** Latencies of the 2xx answers, milliseconds, sorted. */
  latencies: number[];
  statuses: Record<string, number>;
  errors: number;
}

const plan = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LoadPlan;
let next = 0;
const latencies: number[] = [];
const statuses: Record<string, number> = {};
const instance = autocannon({
  url: plan.baseUrl,
  connections: plan.connections,
  ...(plan.amount ? { amount: plan.amount } : { duration: plan.seconds }),
  requests: [
    {
      method: 'GET',
      setupRequest: (request: Record<string, unknown>) => ({ ...request, path: plan.paths[next++ % plan.paths.length] }),
    },
  ],
});
instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
  statuses[status] = (statuses[status] ?? 0) + 1;
  if (status >= 200 && status < 300) latencies.push(ms);
});
const result = await instance;
const out: LoadResult = {
  requests: Object.values(statuses).reduce((a, b) => a + b, 0),
  seconds: result.duration,
  latencies: latencies.sort((a, b) => a - b),
  statuses,
  errors: result.errors + result.timeouts,
};
process.stdout.write(JSON.stringify(out));
