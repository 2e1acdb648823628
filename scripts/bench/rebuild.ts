import { brotliCompressSync, constants } from 'node:zlib';
import type { Config } from '#functions/platform/config';
import { createDeps } from '#functions/platform/composition';
import { createLogger } from '#functions/platform/log';
import { Rebuilder } from '#functions/rebuild/rebuilder';
import { ensureStorage } from '../local/stack.ts';
import { rebuildInShards } from '../local/rebuild/shards.ts';
import { seedFiles, seedSkills } from '../seed-store.ts';
import { latencyRows, round, type Row } from './table.ts';
import { signInWithKey, startBenchStack } from './stack.ts';

/**
 * The static pipeline at 1,000 and 10,000 skills: full rebuild time, then publish-to-visible —
 * from a version POST returning to the new version showing in the registry and in the catalog.
 * At 10,000, the full rebuild fanned out in 1 and in 4 shards (scripts/local/rebuild/shards.ts:
 * a thread per shard, as a Lambda per shard on AWS), each into an empty bucket and then over it.
 */
export async function benchRebuild(sizes = [1000, 10_000], publishes = 25, shardCounts = [1, 4]): Promise<Row[]> {
  const rows: Row[] = [];
  const registryP50: Record<number, number> = {};
  for (const size of sizes) {
    const stack = await startBenchStack({ SKILLPRESS_PUBLISH_LIMIT: '100000', SKILLPRESS_VERSION_LIMIT: '100000' });
    try {
      const section = `rebuild ${size / 1000}k`;
      const { key } = await signInWithKey(stack.baseUrl, 'bench');
      const skills = await seedSkills(stack.deps, { count: size, authorLogin: 'bench', manyVersionsEvery: 100, manyVersions: 50 });
      const started = performance.now();
      const report = await stack.runtime.rebuildAll();
      const seconds = (performance.now() - started) / 1000;
      process.stderr.write(`bench: ${size} skills seeded and rebuilt in ${seconds.toFixed(1)} s\n`);
      rows.push({ section, metric: 'full rebuild', value: round(seconds, 2), unit: 's', ...(size === 10_000 ? { target: '≤ 10', ok: seconds <= 10 } : {}) });
      rows.push({ section, metric: 'full rebuild rate', value: Math.round(report.skills / seconds), unit: 'skills/s' });
      if (size === 10_000) rows.push(...(await benchShards(stack.deps.config, section, shardCounts)));

      const catalog = Buffer.from(await (await fetch(`${stack.baseUrl}/.well-known/skills.json`)).arrayBuffer());
      rows.push({ section, metric: 'catalog raw', value: catalog.byteLength, unit: 'bytes' });
      rows.push({
        section,
        metric: 'catalog brotli (q11)',
        value: brotliCompressSync(catalog, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).byteLength,
        unit: 'bytes',
      });
      // fetch() decodes brotli on its own, so the wire size is the Content-Length header.
      const served = await fetch(`${stack.baseUrl}/.well-known/skills.json`, { headers: { 'accept-encoding': 'br' } });
      await served.arrayBuffer();
      rows.push({ section, metric: 'catalog brotli (as served)', value: Number(served.headers.get('content-length')), unit: 'bytes' });

      const registryMs: number[] = [];
      const catalogMs: number[] = [];
      for (let i = 0; i < publishes; i++) {
        const skill = skills[(i * 397) % skills.length]!;
        const version = `9.${i}.0`;
        const res = await fetch(`${stack.baseUrl}/api/skills/${skill.id}/versions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ version, changelog: 'bench', files: seedFiles(skill.slug) }),
        });
        if (res.status !== 201) throw new Error(`publish → ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
        const acknowledged = performance.now();
        const [registryAt, catalogAt] = await Promise.all([
          waitFor(`${stack.baseUrl}/api/registry/${skill.slug}`, (text) => text.includes(`"currentVersion":"${version}"`)),
          waitFor(`${stack.baseUrl}/.well-known/skills.json`, (text) => text.includes(`"currentVersion":"${version}","description":"${skill.description}"`)),
        ]);
        registryMs.push(registryAt - acknowledged);
        catalogMs.push(catalogAt - acknowledged);
        await stack.runtime.idle();
      }
      rows.push(...latencyRows(section, 'publish→registry visible', registryMs, size === 10_000 ? { p50: 50 } : {}));
      rows.push(...latencyRows(section, 'publish→catalog visible', catalogMs, size === 10_000 ? { p50: 250 } : {}));
      registryP50[size] = [...registryMs].sort((a, b) => a - b)[Math.floor(registryMs.length / 2)]!;
    } finally {
      await stack.stop();
    }
  }
  if (registryP50[1000] && registryP50[10_000]) {
    const ratio = round(registryP50[10_000] / registryP50[1000], 2);
    rows.push({ section: 'rebuild', metric: 'registry visible p50 10k/1k', value: ratio, unit: 'ratio', target: '≤ 1.5', ok: ratio <= 1.5 });
  }
  return rows;
}

/** Polls `url` (If-None-Match, so unchanged files cost a 304) until `ready(body)`; returns when. */
export async function waitFor(url: string, ready: (text: string) => boolean, timeoutMs = 30_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let etag = '';
  while (performance.now() < deadline) {
    const res = await fetch(url, { headers: etag ? { 'if-none-match': etag } : {} });
    if (res.status === 200) {
      etag = res.headers.get('etag') ?? '';
      if (ready(await res.text())) return performance.now();
    } else {
      await res.arrayBuffer();
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error(`${url} did not become ready in ${timeoutMs} ms`);
}

/**
 * The full rebuild of the seeded table in `counts` shards, each run writing every file into an
 * empty static bucket of its own (the same work each time), then again over that bucket, now
 * current (what the daily repair meets): wall time, the rate, and the rate per shard. With one
 * shard (the calling thread) it also counts the S3 requests of each kind per skill and the
 * client's CPU per request, from which docs/deploy.md derives the time at 100,000 and
 * 1,000,000 skills.
 */
export async function benchShards(config: Config, section: string, counts: number[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const shards of counts) {
    const staticBucket = `${config.staticBucket}-shards-${shards}`;
    const fresh: Config = { ...config, staticBucket };
    const deps = createDeps(fresh, { log: createLogger('warn') });
    await ensureStorage(fresh, deps.s3);
    const requests = new Map<string, number>();
    deps.s3.middlewareStack.add(
      (next, context) => (args) => {
        requests.set(context.commandName ?? '?', (requests.get(context.commandName ?? '?') ?? 0) + 1);
        return next(args);
      },
      { step: 'initialize' },
    );
    const name = `${shards} shard${shards === 1 ? '' : 's'}`;
    for (const bucket of ['empty', 'current'] as const) {
      requests.clear();
      const cpu = process.cpuUsage();
      const started = performance.now();
      const report = await rebuildInShards(new Rebuilder(deps), fresh, shards, 'warn');
      const seconds = (performance.now() - started) / 1000;
      const { user, system } = process.cpuUsage(cpu);
      if (report.failed.length > 0) throw new Error(`${report.failed.length} skills failed in ${shards} shards`);
      process.stderr.write(`bench: ${report.skills} skills in ${name} over an ${bucket} bucket in ${seconds.toFixed(1)} s\n`);
      const rate = report.skills / seconds;
      const over = bucket === 'empty' ? '' : ', bucket current';
      rows.push({ section, metric: `full rebuild, ${name} (threads)${over}`, value: round(seconds, 2), unit: 's' });
      rows.push({ section, metric: `full rebuild rate, ${name}${over}`, value: Math.round(rate), unit: 'skills/s' });
      rows.push({ section, metric: `full rebuild rate per shard, ${name}${over}`, value: Math.round(rate / shards), unit: 'skills/s' });
      if (shards !== 1) continue;
      // The shard ran in this thread: every request it made went through `deps.s3`.
      const total = [...requests.values()].reduce((a, b) => a + b, 0);
      for (const [command, n] of [...requests].sort())
        rows.push({ section, metric: `S3 ${command} per skill${over}`, value: round(n / report.skills, 2), unit: 'requests' });
      rows.push({ section, metric: `writes per skill${over}`, value: round(report.written / report.skills, 2), unit: 'objects' });
      rows.push({ section, metric: `client CPU per S3 request${over}`, value: round((user + system) / 1000 / total, 2), unit: 'ms' });
    }
    deps.s3.destroy();
    deps.db.doc.destroy();
  }
  return rows;
}

/**
 * `npm run bench shards`: only the fan-out rows, at BENCH_SHARDS_SKILLS skills (10,000 unless
 * set): a table seeded once, rebuilt in 1 and in 4 shards.
 */
export async function benchRebuildShards(size = Number(process.env.BENCH_SHARDS_SKILLS ?? 10_000), counts = [1, 4]): Promise<Row[]> {
  const stack = await startBenchStack();
  try {
    await seedSkills(stack.deps, { count: size, authorLogin: 'bench', manyVersionsEvery: 100, manyVersions: 50 });
    return await benchShards(stack.deps.config, `rebuild ${size / 1000}k`, counts);
  } finally {
    await stack.stop();
  }
}
