import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { mapLimit } from '#core/map-limit';
import { configFromEnv } from '#functions/platform/config';
import { createDeps } from '#functions/platform/composition';
import { createLogger } from '#functions/platform/log';
import { Rebuilder } from '#functions/rebuild/rebuilder';
import { markCleanStop } from '../local/clean-stop.ts';
import { ensureStorage, startEmbeddedServices } from '../local/stack.ts';
import { seedFiles, seedSkills, seedSlug, seedVersions } from '../seed-store.ts';
import { type ServerProcess, startServer } from '../local/server-process.ts';
import { uniformKeys, zipfKeys } from './key-choice.ts';
import { runLoad, runPool } from './load.ts';
import type { LoadResult } from './load-worker.ts';
import { signInWithKey } from './stack.ts';
import { compared, percentile, round, type Row } from './table.ts';
import { startBareServer } from './bare-server.ts';
import { ensureVerdaccio, npmPublish, startVerdaccio, tarballPath, type VerdaccioServer } from './verdaccio-registry.ts';

/**
 * Skillpress against Verdaccio 6.8.0 on this machine, in one run. Both start from the same
 * 1,000 packages (a few with 55 versions), both run as their own processes (ours exactly as
 * `npm start` runs it), and every workload alternates between the two:
 * - W1 metadata reads: `/api/registry/<slug>` against Verdaccio's packument `/<name>`, at 1 and
 *   16 connections, with uniformly random and with Zipf-skewed keys;
 * - W2 content downloads: our counted free delivery `/api/deliver/<id>?source=cli` against
 *   Verdaccio's tarballs, then every delivery must show in the install counts;
 * - W3 publishing: 200 new versions one at a time, 4 and 16 at once, new skills/packages 16 at
 *   once, and publish-to-visible (until the metadata read shows the new version); measured warm,
 *   after 450 versions per system that no figure counts (see WARM_PUBLISHES).
 * Sizes come from the environment (BENCH_SKILLS, BENCH_SECONDS, BENCH_ROUNDS, BENCH_PUBLISHES)
 * so a trial run can be small, and BENCH_WORKLOADS (say `w3`) runs some of the workloads only.
 */

export interface CompareOptions {
  skills: number;
  manyVersionsEvery: number;
  manyVersions: number;
  /** Length of one measured load run. */
  seconds: number;
  /** Measured runs per system and read workload, in alternating order. */
  rounds: number;
  /** Publishes per publishing workload. */
  publishes: number;
  /** The workloads to run: W1 and W2 are the reads, W3 the publishing. */
  workloads: Set<'w1' | 'w2' | 'w3'>;
}

export function compareOptions(env: NodeJS.ProcessEnv = process.env): CompareOptions {
  const n = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
  // Each publish of a pass goes to its own package, so the new version is the latest one.
  if (n('BENCH_PUBLISHES', 200) > n('BENCH_SKILLS', 1000)) throw new Error('BENCH_PUBLISHES must not exceed BENCH_SKILLS');
  return {
    skills: n('BENCH_SKILLS', 1000),
    manyVersionsEvery: 100,
    manyVersions: 55,
    seconds: n('BENCH_SECONDS', 5),
    rounds: n('BENCH_ROUNDS', 2),
    publishes: n('BENCH_PUBLISHES', 200),
    workloads: workloadsFrom(env.BENCH_WORKLOADS),
  };
}

function workloadsFrom(list = 'w1,w2,w3'): CompareOptions['workloads'] {
  const names = list
    .toLowerCase()
    .split(',')
    .map((name) => name.trim());
  const unknown = names.filter((name) => name !== 'w1' && name !== 'w2' && name !== 'w3');
  if (unknown.length > 0) throw new Error(`BENCH_WORKLOADS names no workload ${unknown.join(', ')}; use w1, w2 and w3`);
  return new Set(names as ('w1' | 'w2' | 'w3')[]);
}

const SECTION = 'vs verdaccio';
const WARM_SECONDS = 1;
const KEY_SEQUENCE = 50_000;
const VISIBLE_PUBLISHES = 50;
/**
 * Unmeasured publishes per system before the publishing workloads, to skills no pass uses
 * (several versions each). Our four Node processes (requests, rebuild thread, embedded DynamoDB
 * and S3) are still compiling their publish paths long after the first publishes: with
 * `--trace-opt`, the server alone spent 0.9 s in TurboFan during publishes 1–50, 4.1 s during
 * 51–250, 1.6 s during 251–450 and 0.6–0.9 s per 200 after that, and the one-at-a-time rate over
 * successive 200s went 27.5, 37.9, 49.9, 50.9, 52.2/s. So both systems publish this many first.
 */
const WARM_PUBLISHES = 450;
/** `target(WARM_MODE, i)`: past the three version passes and the publish→visible pass (mode 3). */
const WARM_MODE = 4;

type System = 'ours' | 'peer';

interface Seeded {
  id: string;
  slug: string;
  latest: string;
}

export async function benchVerdaccio(options = compareOptions()): Promise<Row[]> {
  const rows: Row[] = [{ section: SECTION, metric: 'load average (1 min) at start', value: round(loadavg()[0]!, 2), unit: '' }];
  const bin = ensureVerdaccio(resolve(process.env.VERDACCIO_DIR ?? join(tmpdir(), 'skillpress-bench-verdaccio')));
  const runDir = mkdtempSync(join(tmpdir(), 'skillpress-vs-verdaccio-'));
  let ours: ServerProcess | undefined;
  let peer: VerdaccioServer | undefined;
  try {
    let started = performance.now();
    const skills = await seedSkillpress(join(runDir, 'skillpress'), options);
    const oursSeeded = (performance.now() - started) / 1000;
    ours = await startServer({
      DATA_DIR: join(runDir, 'skillpress'),
      SKILLPRESS_PUBLISH_LIMIT: '1000000',
      SKILLPRESS_VERSION_LIMIT: '1000000',
      LOG_LEVEL: 'warn',
    });
    peer = await startVerdaccio(bin, join(runDir, 'verdaccio'));
    started = performance.now();
    await seedVerdaccio(peer, options);
    const peerSeeded = (performance.now() - started) / 1000;
    progress(`seeded ${skills.length} skills in ${oursSeeded.toFixed(1)} s (bulk) and packages in ${peerSeeded.toFixed(1)} s (publish API)`);
    rows.push({
      section: SECTION,
      metric: `seed ${skills.length} skills/packages (ours: bulk + full rebuild; Verdaccio: publish API, 8 at once)`,
      value: round(oursSeeded),
      peer: round(peerSeeded),
      unit: 's',
    });

    const oursBase = ours.baseUrl;
    const peerBase = peer.baseUrl;
    const { cookie, key } = await signInWithKey(oursBase, 'bench');
    rows.push(...(await readWorkloads(options, skills, oursBase, peerBase)));
    if (options.workloads.has('w2')) rows.push(await countCheck(oursBase, cookie, skills));
    if (options.workloads.has('w3')) rows.push(...(await publishWorkloads(options, skills, oursBase, key, peer)));
    rows.push({ section: SECTION, metric: 'load average (1 min) at end', value: round(loadavg()[0]!, 2), unit: '' });
    return rows;
  } finally {
    await ours?.stop('SIGINT');
    await peer?.stop();
    rmSync(runDir, { recursive: true, force: true });
  }
}

/** Our side of the seed: straight into the store, then the full rebuild, as `npm run rebuild` does. */
async function seedSkillpress(dataDir: string, options: CompareOptions): Promise<Seeded[]> {
  const services = await startEmbeddedServices(dataDir);
  try {
    const config = configFromEnv({ DYNAMODB_ENDPOINT: services.dynamoEndpoint, S3_ENDPOINT: services.s3Endpoint });
    const deps = createDeps(config, { log: createLogger('warn') });
    await ensureStorage(config, deps.s3);
    const skills = await seedSkills(deps, {
      count: options.skills,
      authorLogin: 'bench',
      manyVersionsEvery: options.manyVersionsEvery,
      manyVersions: options.manyVersions,
    });
    await new Rebuilder(deps).rebuildAll();
    deps.s3.destroy();
    deps.db.doc.destroy();
    return skills.map((s) => ({ id: s.id, slug: s.slug, latest: s.currentVersion }));
  } finally {
    await services.stop();
    // The static files are complete: `npm start` need not repeat the rebuild.
    markCleanStop(dataDir);
  }
}

/** Verdaccio's side: it has no bulk path, so every version goes through `npm publish`'s API. */
async function seedVerdaccio(peer: VerdaccioServer, options: CompareOptions): Promise<void> {
  let done = 0;
  await mapLimit(
    Array.from({ length: options.skills }, (_, i) => i),
    8,
    async (i) => {
      // One package's versions in order, as a maintainer would publish them.
      for (const version of seedVersions(i, options)) await npmPublish(peer, seedSlug(i), version, seedFiles(seedSlug(i)));
      if (++done % 100 === 0) progress(`verdaccio: ${done} packages published`);
    },
  );
}

interface ReadCell {
  name: string;
  what: 'metadata' | 'download';
  keys: 'random' | 'skewed';
  connections: number;
  atLeast: number;
}

const READ_CELLS: ReadCell[] = [
  { name: 'W1 metadata, random keys, 1 connection', what: 'metadata', keys: 'random', connections: 1, atLeast: 5 },
  { name: 'W1 metadata, skewed keys, 1 connection', what: 'metadata', keys: 'skewed', connections: 1, atLeast: 5 },
  { name: 'W1 metadata, random keys, 16 connections', what: 'metadata', keys: 'random', connections: 16, atLeast: 5 },
  { name: 'W1 metadata, skewed keys, 16 connections', what: 'metadata', keys: 'skewed', connections: 16, atLeast: 5 },
  { name: 'W2 download, random keys, 1 connection', what: 'download', keys: 'random', connections: 1, atLeast: 1 },
  { name: 'W2 download, random keys, 16 connections', what: 'download', keys: 'random', connections: 16, atLeast: 1 },
];

async function readWorkloads(options: CompareOptions, skills: Seeded[], oursBase: string, peerBase: string): Promise<Row[]> {
  const rows: Row[] = [];
  // Both are measured warm: every key is read once first. Our cold read goes through the local
  // CDN's cache to S3 (s3rver), where CloudFront would answer in production; Verdaccio's comes
  // from the files it just wrote, in the page cache.
  const cells = READ_CELLS.filter((cell) => options.workloads.has(cell.what === 'metadata' ? 'w1' : 'w2'));
  if (cells.length === 0) return rows;
  for (const [base, path] of [
    [oursBase, (s: Seeded) => `/api/registry/${s.slug}`],
    [peerBase, (s: Seeded) => `/${s.slug}`],
    [oursBase, (s: Seeded) => `/api/deliver/${s.id}?source=cli`],
    [peerBase, (s: Seeded) => tarballPath(s.slug, s.latest)],
  ] as const) {
    const paths = skills.map(path);
    await runLoad({ baseUrl: base, paths, connections: 8, seconds: 0, amount: paths.length });
  }
  // The ceiling of the metadata cells at one connection, serving our registry documents.
  const bare = cells.some(hasCeiling)
    ? await startBareServer(
        oursBase,
        skills.map((s) => `/api/registry/${s.slug}`),
      )
    : undefined;
  try {
    for (const cell of cells)
      rows.push(...(await readCell(cell, options, skills, { ours: oursBase, peer: peerBase, ...(bare ? { bare: bare.baseUrl } : {}) })));
  } finally {
    await bare?.stop();
  }
  return rows;
}

/** The cells measured beside a bare server's ceiling (bare-server.ts): metadata at one connection. */
const hasCeiling = (cell: ReadCell) => cell.what === 'metadata' && cell.connections === 1;

type Reader = 'ours' | 'peer' | 'bare';

async function readCell(
  cell: ReadCell,
  options: CompareOptions,
  skills: Seeded[],
  bases: Partial<Record<Reader, string>> & Record<System, string>,
): Promise<Row[]> {
  const index = READ_CELLS.indexOf(cell);
  const keys = cell.keys === 'random' ? uniformKeys(skills.length, KEY_SEQUENCE, index + 1) : zipfKeys(skills.length, KEY_SEQUENCE, index + 1);
  const ours = keys.map((k) => (cell.what === 'metadata' ? `/api/registry/${skills[k]!.slug}` : `/api/deliver/${skills[k]!.id}?source=cli`));
  const paths: Record<Reader, string[]> = {
    ours,
    peer: keys.map((k) => (cell.what === 'metadata' ? `/${skills[k]!.slug}` : tarballPath(skills[k]!.slug, skills[k]!.latest))),
    bare: ours,
  };
  const readers: Reader[] = hasCeiling(cell) && bases.bare ? ['ours', 'peer', 'bare'] : ['ours', 'peer'];
  const run = (reader: Reader, seconds: number) => runLoad({ baseUrl: bases[reader]!, paths: paths[reader], connections: cell.connections, seconds });
  for (const reader of readers) await run(reader, WARM_SECONDS);
  const results: Record<Reader, LoadResult[]> = { ours: [], peer: [], bare: [] };
  for (let round = 0; round < options.rounds; round++) {
    // ABBA: alternate who goes first, so drift in the machine's load falls on all alike.
    for (const reader of round % 2 === 0 ? readers : [...readers].reverse()) results[reader].push(await run(reader, options.seconds));
  }
  const [o, p] = [combine(results.ours), combine(results.peer)];
  progress(`${cell.name}: ours ${o.rps.toFixed(0)} req/s, verdaccio ${p.rps.toFixed(0)} req/s`);
  const rows = [
    compared(SECTION, `${cell.name}: throughput`, 'req/s', o.rps, p.rps, { atLeast: cell.atLeast }),
    compared(SECTION, `${cell.name}: p50`, 'ms', o.p50, p.p50),
    compared(SECTION, `${cell.name}: p99`, 'ms', o.p99, p.p99),
  ];
  if (results.bare.length > 0) {
    const b = combine(results.bare);
    if (b.failed > 0) throw new Error(`the bare server answered ${b.failed} reads with other than 200: it serves only the paths it was given`);
    progress(`${cell.name}: bare node:http server ${b.rps.toFixed(0)} req/s`);
    rows.push(
      compared(
        SECTION,
        `${cell.name}: a bare node:http server's throughput (the ceiling; ours is ${Math.round((100 * o.rps) / b.rps)}% of it)`,
        'req/s',
        b.rps,
        p.rps,
      ),
    );
  }
  if (o.failed + p.failed > 0)
    rows.push({ section: SECTION, metric: `${cell.name}: non-2xx or errors`, value: o.failed, peer: p.failed, unit: 'req', target: '= 0', ok: false });
  return rows;
}

/** Several runs of one system as one: total requests over total time; latencies pooled. */
function combine(results: LoadResult[]): { rps: number; p50: number; p99: number; failed: number } {
  const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const requests = results.reduce((sum, r) => sum + r.requests, 0);
  const seconds = results.reduce((sum, r) => sum + r.seconds, 0);
  const ok = latencies.length;
  return {
    rps: requests / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failed: requests - ok + results.reduce((sum, r) => sum + r.errors, 0),
  };
}

/**
 * Every delivery we answer with 200 shows in the install counts, exactly. A timed run stops
 * with requests in flight that the server may have answered (and counted) unseen, so this
 * sends a fixed number, 16 at once, to a few skills and compares their counts before and after.
 */
async function countCheck(base: string, cookie: string, skills: Seeded[]): Promise<Row> {
  const counted = skills.slice(0, 20);
  const totals = async () => {
    const each = await mapLimit(
      counted,
      8,
      async (skill) => ((await (await fetch(`${base}/api/analytics/${skill.id}`, { headers: { cookie } })).json()) as { total: number }).total,
    );
    return each.reduce((a, b) => a + b, 0);
  };
  const before = await totals();
  const paths = uniformKeys(counted.length, 2000, 99).map((k) => `/api/deliver/${counted[k]!.id}?source=cli`);
  const run = await runLoad({ baseUrl: base, paths, connections: 16, seconds: 0, amount: paths.length });
  const served = run.statuses['200'] ?? 0;
  const drift = (await totals()) - before - served;
  return {
    section: SECTION,
    metric: `W2 installs counted − deliveries answered 200 (${served} of ${paths.length}, 16 at once)`,
    value: drift,
    unit: 'installs',
    target: '= 0',
    ok: drift === 0 && served === paths.length,
  };
}

async function publishWorkloads(options: CompareOptions, skills: Seeded[], oursBase: string, key: string, peer: VerdaccioServer): Promise<Row[]> {
  const rows: Row[] = [];
  const files = (slug: string, version: string) =>
    seedFiles(slug).map((f) => ({ ...f, content: f.filename === 'SKILL.md' ? `${f.content}\nRelease ${version}\n` : f.content }));
  const oursPost = async (path: string, body: unknown) => {
    const res = await fetch(oursBase + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`${path} → ${res.status} ${text.slice(0, 200)}`);
  };
  /** Whether a metadata read shows `version` as the latest of `slug` yet. */
  const shows: Record<System, (slug: string, version: string) => Promise<boolean>> = {
    ours: async (slug, version) => {
      const res = await fetch(`${oursBase}/api/registry/${slug}`);
      return res.ok && ((await res.json()) as { currentVersion: string }).currentVersion === version;
    },
    peer: async (slug, version) => {
      const res = await fetch(`${peer.baseUrl}/${slug}`);
      return res.ok && ((await res.json()) as { 'dist-tags': { latest: string } })['dist-tags'].latest === version;
    },
  };
  const untilShown = async (system: System, slug: string, version: string) => {
    while (!(await shows[system](slug, version))) await new Promise((resolve) => setTimeout(resolve, 1));
  };

  /**
   * One publishing pass of one system: `count` publishes, `connections` at a time; then waits
   * until metadata reads show every one of them, so no rebuild spills into the next pass.
   */
  const pass = async (
    system: System,
    connections: number,
    publish: (i: number) => { slug: string; version: string; send: () => Promise<void> },
    count: number,
  ): Promise<Pass> => {
    const started = performance.now();
    const planned = Array.from({ length: count }, (_, i) => publish(i));
    const latencies = await runPool(planned.length, connections, async (i) => {
      const at = performance.now();
      await planned[i]!.send();
      return performance.now() - at;
    });
    const acknowledged = performance.now();
    await mapLimit(planned, 8, (p) => untilShown(system, p.slug, p.version));
    return { count, acknowledgedSeconds: (acknowledged - started) / 1000, visibleSeconds: (performance.now() - started) / 1000, latencies };
  };
  const compare = (what: string, unit: string, results: Record<System, Pass[]>) => {
    const [ours, peer] = [joined(results.ours), joined(results.peer)];
    progress(`${what}: ours ${ours.rate.toFixed(0)}/s, verdaccio ${peer.rate.toFixed(0)}/s`);
    rows.push(compared(SECTION, `${what}: rate acknowledged`, unit, ours.rate, peer.rate, { atLeast: 5 }));
    rows.push(compared(SECTION, `${what}: rate until all visible`, unit, ours.visibleRate, peer.visibleRate));
    rows.push(compared(SECTION, `${what}: p50`, 'ms', percentile(ours.latencies, 50), percentile(peer.latencies, 50)));
    rows.push(compared(SECTION, `${what}: p99`, 'ms', percentile(ours.latencies, 99), percentile(peer.latencies, 99)));
  };

  const target = (mode: number, i: number) => skills[(mode * options.publishes + i) % skills.length]!;
  const newVersion: Record<System, (mode: number, i: number, version: string) => Promise<void>> = {
    ours: (mode, i, version) =>
      oursPost(`/api/skills/${target(mode, i).id}/versions`, { version, changelog: `bench ${version}`, files: files(target(mode, i).slug, version) }),
    peer: (mode, i, version) => npmPublish(peer, target(mode, i).slug, version, files(target(mode, i).slug, version)),
  };
  // Publishing is measured warm, as the reads are: each system first publishes versions that no
  // figure counts (see WARM_PUBLISHES), to the skills of WARM_MODE only, so no measured pass
  // publishes to a skill the warm-up touched. Version 1.999.x sits above every seeded version
  // and below every measured one. It goes in laps of one version per skill, each a pass that
  // waits until its versions show (a pass checks that each of its versions is the latest).
  for (const system of ['ours', 'peer'] as const) {
    for (let lap = 0; lap * options.publishes < WARM_PUBLISHES; lap++) {
      const count = Math.min(options.publishes, WARM_PUBLISHES - lap * options.publishes);
      const version = (i: number) => `1.999.${lap * options.publishes + i}`;
      await pass(system, 1, (i) => ({ slug: target(WARM_MODE, i).slug, version: version(i), send: () => newVersion[system](WARM_MODE, i, version(i)) }), count);
    }
  }
  const modes = [
    { label: 'one at a time', connections: 1 },
    { label: '4 at once', connections: 4 },
    { label: '16 at once', connections: 16 },
  ];
  // Each workload's publishes go in two halves, ABBA as the reads do: one system's whole pass
  // took 3–6 s against the other's 20–30 s, so a slow stretch of the machine could fall on one alone.
  const half = Math.ceil(options.publishes / 2);
  const inHalves = async (first: System, run: (system: System, from: number, count: number) => Promise<Pass>) => {
    const second: System = first === 'ours' ? 'peer' : 'ours';
    const results: Record<System, Pass[]> = { ours: [], peer: [] };
    for (const system of [first, second]) results[system].push(await run(system, 0, half));
    for (const system of [second, first]) results[system].push(await run(system, half, options.publishes - half));
    return results;
  };
  for (const [mode, { label, connections }] of modes.entries()) {
    const results = await inHalves(mode % 2 === 0 ? 'ours' : 'peer', (system, from, count) =>
      pass(
        system,
        connections,
        (i) => {
          const version = `2.${mode}.${from + i}`;
          return { slug: target(mode, from + i).slug, version, send: () => newVersion[system](mode, from + i, version) };
        },
        count,
      ),
    );
    compare(`W3 publish ${options.publishes} new versions, ${label}`, 'versions/s', results);
  }

  // New skills / packages, 16 at once: the path the raised publish limit is for.
  const fresh = await inHalves('peer', (system, from, count) =>
    pass(
      system,
      16,
      (i) => {
        const slug = `fresh-${from + i}`;
        return {
          slug,
          version: '1.0.0',
          send: () =>
            system === 'ours'
              ? oursPost('/api/publish', { name: `Fresh ${from + i}`, slug, description: 'bench', category: 'bench', files: files(slug, '1.0.0') })
              : npmPublish(peer, slug, '1.0.0', files(slug, '1.0.0')),
        };
      },
      count,
    ),
  );
  compare(`W3 publish ${options.publishes} new skills/packages, 16 at once`, 'publishes/s', fresh);

  // Publish-to-visible, one at a time: from sending a version to the first read that shows it.
  const visible: Record<System, number[]> = { ours: [], peer: [] };
  const count = Math.min(VISIBLE_PUBLISHES, options.publishes);
  for (let i = 0; i < count; i++) {
    for (const system of i % 2 === 0 ? (['ours', 'peer'] as const) : (['peer', 'ours'] as const)) {
      const version = `3.0.${i}`;
      const started = performance.now();
      await newVersion[system](3, i, version);
      await untilShown(system, target(3, i).slug, version);
      visible[system].push(performance.now() - started);
    }
  }
  for (const list of Object.values(visible)) list.sort((a, b) => a - b);
  rows.push(
    compared(SECTION, `W3 publish→visible in metadata (${count}, one at a time): p50`, 'ms', percentile(visible.ours, 50), percentile(visible.peer, 50)),
  );
  rows.push(compared(SECTION, 'W3 publish→visible in metadata: p99', 'ms', percentile(visible.ours, 99), percentile(visible.peer, 99)));
  return rows;
}

/** A publishing pass: how many, the seconds until all were acknowledged and until all showed, each one's latency. */
interface Pass {
  count: number;
  acknowledgedSeconds: number;
  visibleSeconds: number;
  latencies: number[];
}

/** Several passes of one system as one: publishes over the seconds they took; latencies pooled. */
function joined(passes: Pass[]): { rate: number; visibleRate: number; latencies: number[] } {
  const sum = (of: (p: Pass) => number) => passes.reduce((total, p) => total + of(p), 0);
  return {
    rate: sum((p) => p.count) / sum((p) => p.acknowledgedSeconds),
    visibleRate: sum((p) => p.count) / sum((p) => p.visibleSeconds),
    latencies: passes.flatMap((p) => p.latencies).sort((a, b) => a - b),
  };
}

function progress(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}
