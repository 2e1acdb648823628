import { seedFiles, seedSkills } from '../seed-store.ts';
import { waitFor } from './rebuild.ts';
import { docsCorpus, loadCorpus, syntheticListing } from './search-corpus.ts';
import { signInWithKey, startBenchStack } from './stack.ts';
import { latencyRows, percentile, round, type Row } from './table.ts';

/**
 * `npm run bench visible`: publish → visible under a steady stream of publishes, one new version
 * every 0.25 s whatever the last one is doing, at a small and at a real catalog's size (885, the
 * real skills `npm run bench search` publishes). Each is timed from its 201 until the CDN serves
 * its registry document with the new version. Nothing a publish waits for may grow with the
 * catalog: target p50 at the large size ≤ 1.5× p50 at the small one.
 *
 * The skills are seeded straight into the store and fully rebuilt (the search index included),
 * recombined from the real corpus (SKILLPRESS_BENIGN_REPOS) or, without it, from this
 * repository's documentation, so bodies and listings have real sizes and vocabulary; each
 * version publishes a new body taken the same way.
 */
export async function benchVisible(sizes = [15, 885], publishes = Number(process.env.BENCH_VISIBLE_PUBLISHES ?? 60), everyMs = 250): Promise<Row[]> {
  const corpus = loadCorpus() ?? docsCorpus();
  const rows: Row[] = [];
  const p50: number[] = [];
  for (const size of sizes) {
    const section = `visible ${size}`;
    const stack = await startBenchStack({ SKILLPRESS_PUBLISH_LIMIT: '100000', SKILLPRESS_VERSION_LIMIT: '100000' });
    try {
      const { key } = await signInWithKey(stack.baseUrl, 'bench');
      const skills = await seedSkills(stack.deps, { count: size, authorLogin: 'bench', listing: (i) => syntheticListing(corpus, i) });
      await stack.runtime.rebuildAll();
      await stack.runtime.idle();
      const publish = async (n: number): Promise<number> => {
        const skill = skills[n % skills.length]!;
        const version = `2.${n}.0`;
        const listing = syntheticListing(corpus, size + n);
        const res = await fetch(`${stack.baseUrl}/api/skills/${skill.id}/versions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ version, changelog: 'bench', files: seedFiles(skill.slug, { description: skill.description, body: listing.body }) }),
        });
        if (res.status !== 201) throw new Error(`publish → ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
        const acknowledged = performance.now();
        const served = await waitFor(`${stack.baseUrl}/api/registry/${skill.slug}`, (text) => text.includes(`"currentVersion":"${version}"`));
        return served - acknowledged;
      };
      // A warm-up stream first (JIT, SDK connections, every shard held once), then the measured one.
      await stream(Math.min(8, publishes), everyMs, (n) => publish(n));
      await stack.runtime.idle();
      const times = await stream(publishes, everyMs, (n) => publish(1000 + n));
      rows.push(...latencyRows(section, `publish → registry served, one publish every ${everyMs} ms`, times));
      p50.push(
        percentile(
          [...times].sort((a, b) => a - b),
          50,
        ),
      );
      process.stderr.write(`bench: visible at ${size} skills: p50 ${round(p50.at(-1)!)} ms\n`);
    } finally {
      await stack.stop();
    }
  }
  if (p50.length === 2) {
    const ratio = round(p50[1]! / p50[0]!, 2);
    rows.push({ section: 'visible', metric: `p50 at ${sizes[1]} / p50 at ${sizes[0]} skills`, value: ratio, unit: 'ratio', target: '≤ 1.5', ok: ratio <= 1.5 });
  }
  return rows;
}

/** Starts `count` tasks `everyMs` apart, each on schedule whether or not the ones before it ended; their results in order. */
async function stream<T>(count: number, everyMs: number, task: (n: number) => Promise<T>): Promise<T[]> {
  const started = performance.now();
  const running: Promise<T>[] = [];
  for (let n = 0; n < count; n++) {
    const wait = started + n * everyMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    running.push(task(n));
  }
  return Promise.all(running);
}
