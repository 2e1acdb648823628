import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { mapLimit } from '#core/map-limit';
import { retierSearchIndex } from '#functions/rebuild/search-index';
import { publishInstallCounts } from '#functions/services/public-installs';
import { seedSkills } from '../seed-store.ts';
import { BENIGN_REPOS_VARIABLE } from './git-skills.ts';
import { type CorpusSkill, loadCorpus, seededInstalls, syntheticListing } from './search-corpus.ts';
import { type JudgedQuery, mean, type QueryScore, scoreQuery } from './search-quality.ts';
import { type BenchStack, signInWithKey, startBenchStack } from './stack.ts';
import { latencyRows, percentile, round, type Row } from './table.ts';

/**
 * `npm run bench search`: the search of issue 40 on the real catalog (every skill of the
 * repositories SKILLPRESS_BENIGN_REPOS names, published through the API, popularity seeded as
 * installs from many distinct clients on 127.0.0.x) and on 10,000 synthetic skills: quality on
 * the judged query set, what queries about nothing return, latency in the browser (Chromium, a
 * search per keystroke), through the API and through the CLI, and the index's size.
 */
const SECTION = 'search';
const queries = (JSON.parse(readFileSync(path.join(import.meta.dirname, 'search-queries.json'), 'utf8')) as { queries: JudgedQuery[] }).queries;
/** Synthetic skills of the second part; SEARCH_BENCH_SYNTHETIC=0 runs the real catalog alone. */
const SYNTHETIC = Number(process.env.SEARCH_BENCH_SYNTHETIC ?? 10_000);
/** SEARCH_BENCH_REAL=0 runs the synthetic catalog alone (it still takes its words from the real skills). */
const REAL = process.env.SEARCH_BENCH_REAL !== '0';
const CLI_QUERIES = 15;

export async function benchSearch(): Promise<Row[]> {
  const corpus = loadCorpus();
  if (!corpus) {
    process.stderr.write(`bench: search skipped: set ${BENIGN_REPOS_VARIABLE} to git directories of skills repositories, separated by ':'\n`);
    return [{ section: SECTION, metric: `skipped (no ${BENIGN_REPOS_VARIABLE})`, value: 0, unit: '' }];
  }
  const rows: Row[] = [];
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const script = await browserScript();
    if (REAL) rows.push(...(await realCatalog(corpus, browser, script)));
    if (SYNTHETIC > 0) rows.push(...(await syntheticCatalog(corpus, browser, script)));
  } finally {
    await browser.close();
  }
  return rows;
}

async function realCatalog(corpus: CorpusSkill[], browser: Awaited<ReturnType<typeof chromium.launch>>, script: string): Promise<Row[]> {
  const section = `${SECTION} real`;
  const stack = await startBenchStack({ SKILLPRESS_PUBLISH_LIMIT: '1000000' });
  try {
    const published = await publishCorpus(stack, corpus);
    const rows: Row[] = [{ section, metric: `skills published (of ${corpus.length} folders)`, value: published.ids.size, unit: 'skills' }];
    const codes = new Map<string, number>();
    for (const r of published.refused) codes.set(r.code, (codes.get(r.code) ?? 0) + 1);
    for (const [code, n] of [...codes].sort()) rows.push({ section, metric: `refused: ${code}`, value: n, unit: 'skills' });
    // Each refusal but the many generated integrations whose names are not skill names, and a second skill of a taken slug.
    for (const r of published.refused.filter((r) => r.code !== 'slug_taken' && !r.folder.includes('/composio-skills/')))
      process.stderr.write(`bench: refused ${r.folder}: ${r.code} ${r.message}\n`);
    for (const folder of WATCHED) {
      const refusal = published.refused.find((r) => r.folder.endsWith(folder));
      process.stderr.write(`bench: ${folder}: ${refusal ? `refused, ${refusal.code}: ${refusal.message}` : 'published'}\n`);
    }
    const installs = await seedPopularity(stack, published.ids);
    rows.push({ section, metric: 'installs seeded (distinct clients 127.0.0.x)', value: installs, unit: 'installs' });
    await stack.runtime.idle();
    await publishInstallCounts(stack.deps);
    await retierSearchIndex(stack.deps);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the API's reader looks again after a second

    // Judged against what was published: a skill the publish refused (the scanner, the size limit)
    // is not in the catalog, and a query all of whose answers were refused is set aside.
    const judged = queries.flatMap((query) => {
      const relevant = Object.fromEntries(Object.entries(query.relevant).filter(([slug]) => published.ids.has(slug)));
      const answerless = query.kind !== 'none' && Object.keys(relevant).length === 0;
      if (answerless) process.stderr.write(`bench: set aside "${query.q}": every skill it wants was refused at publish\n`);
      return answerless ? [] : [{ ...query, relevant }];
    });
    rows.push({ section, metric: 'queries set aside (every answer refused at publish)', value: queries.length - judged.length, unit: 'queries' });
    const scores: QueryScore[] = [];
    const apiMs: number[] = [];
    for (const query of judged) {
      const started = performance.now();
      const res = await fetch(`${stack.baseUrl}/api/search?q=${encodeURIComponent(query.q)}&limit=10`);
      const body = (await res.json()) as { total: number; skills: { slug: string }[] };
      apiMs.push(performance.now() - started);
      scores.push(
        scoreQuery(
          query,
          body.skills.map((s) => s.slug),
          body.total,
        ),
      );
    }
    rows.push(...qualityRows(section, scores));
    rows.push(...latencyRows(section, 'API query (GET /api/search)', apiMs));
    rows.push(...(await browserRows(section, stack, browser, script)));
    rows.push(...(await cliRows(section, stack)));
    rows.push(...(await sizeRows(section, stack)));
    printWorst(scores);
    return rows;
  } finally {
    await stack.stop();
  }
}

/** The four real skills issue 40 names: three with allowed-tools as a list, one with a long description. */
const WATCHED = ['trailmark-finding-triage', 'trailmark-review-gate', 'trailmark-variant-neighborhood', 'skills/claude-api'];

async function publishCorpus(stack: BenchStack, corpus: CorpusSkill[]) {
  const keys = new Map<string, string>();
  for (const author of new Set(corpus.map((s) => s.author))) keys.set(author, (await signInWithKey(stack.baseUrl, author)).key);
  const ids = new Map<string, { id: string; skill: CorpusSkill }>();
  const refused: { folder: string; code: string; message: string }[] = [];
  // One author's skills in order (the first of two same-named skills keeps the slug), authors side by side.
  const byAuthor = [...new Set(corpus.map((s) => s.author))].map((author) => corpus.filter((s) => s.author === author));
  await Promise.all(
    byAuthor.map(async (skills) => {
      for (const skill of skills) {
        const res = await fetch(`${stack.baseUrl}/api/publish`, {
          method: 'POST',
          headers: { authorization: `Bearer ${keys.get(skill.author)}`, 'content-type': 'application/json' },
          body: JSON.stringify(skill.body),
        });
        const answer = (await res.json()) as { id?: string; slug?: string; error?: { code: string; message: string } };
        if (res.status === 201) ids.set(answer.slug!, { id: answer.id!, skill });
        else refused.push({ folder: `${skill.repo}/${skill.folder}`, code: answer.error?.code ?? String(res.status), message: answer.error?.message ?? '' });
      }
    }),
  );
  await stack.runtime.idle();
  return { ids, refused };
}

/** Installs each skill from as many distinct loopback addresses as it has clients, and a few CI loops reinstalling from one. */
async function seedPopularity(stack: BenchStack, ids: Map<string, { id: string; skill: CorpusSkill }>): Promise<number> {
  const port = Number(new URL(stack.baseUrl).port);
  const jobs: { id: string; client: number }[] = [];
  for (const [slug, { id, skill }] of ids) {
    const clients = seededInstalls(skill, slug);
    for (let c = 0; c < clients; c++) jobs.push({ id, client: 2 + (c % 250) });
  }
  // A CI job reinstalling the same skills on every run: many installs, one client.
  const loops = [...ids.values()].filter(({ skill }) => skill.folder.startsWith('composio-skills/')).slice(0, 3);
  for (const { id } of loops) for (let n = 0; n < 60; n++) jobs.push({ id, client: 254 });
  await mapLimit(jobs, 16, (job) => install(port, job.id, `127.0.0.${job.client}`));
  return jobs.length;
}

function install(port: number, id: string, localAddress: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: `/api/deliver/${id}?source=cli`, localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`deliver ${id}: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

function qualityRows(section: string, scores: QueryScore[]): Row[] {
  const answerable = scores.filter((s) => s.query.kind !== 'none');
  const none = scores.filter((s) => s.query.kind === 'none');
  const ndcg = round(mean(answerable.map((s) => s.ndcg)), 3);
  const zero = round((100 * answerable.filter((s) => s.total === 0).length) / answerable.length, 1);
  const rows: Row[] = [
    { section, metric: `queries judged (${answerable.length} with an answer, ${none.length} without)`, value: scores.length, unit: 'queries' },
    { section, metric: 'nDCG@10', value: ndcg, unit: '', target: '≥ 0.9', ok: ndcg >= 0.9 },
    { section, metric: 'recall@10', value: round(mean(answerable.map((s) => s.recall)), 3), unit: '' },
    { section, metric: 'MRR', value: round(mean(answerable.map((s) => s.reciprocalRank)), 3), unit: '' },
    { section, metric: 'zero results (queries with an answer)', value: zero, unit: '%', target: '≤ 3', ok: zero <= 3 },
  ];
  for (const kind of ['name', 'task', 'synonym', 'typo'] as const) {
    const of = answerable.filter((s) => s.query.kind === kind);
    rows.push({ section, metric: `nDCG@10, ${kind} queries (${of.length})`, value: round(mean(of.map((s) => s.ndcg)), 3), unit: '' });
  }
  const returned = none.map((s) => s.total);
  const most = Math.max(0, ...returned);
  rows.push({ section, metric: `no-answer queries answered with nothing (of ${none.length})`, value: returned.filter((n) => n === 0).length, unit: 'queries' });
  rows.push({ section, metric: 'no-answer queries: most results returned', value: most, unit: 'skills', target: '≤ 3', ok: most <= 3 });
  for (const s of none) if (s.total > 0) process.stderr.write(`bench: no-answer "${s.query.q}" → ${s.total}: ${s.results.slice(0, 3).join(', ')}\n`);
  return rows;
}

function printWorst(scores: QueryScore[]): void {
  const worst = scores
    .filter((s) => s.query.kind !== 'none')
    .sort((a, b) => a.ndcg - b.ndcg)
    .slice(0, 10);
  console.log('\nThe ten worst queries (nDCG@10; what came first; what was wanted):');
  for (const s of worst) {
    const wanted = Object.entries(s.query.relevant)
      .filter(([, g]) => g === 2)
      .map(([slug]) => slug)
      .join(', ');
    console.log(`  ${s.ndcg.toFixed(2)}  [${s.query.kind}] "${s.query.q}" → ${s.results.slice(0, 3).join(', ') || '(nothing)'}; wanted ${wanted}`);
  }
  console.log('');
}

async function browserScript(): Promise<string> {
  const result = await build({
    entryPoints: [path.join(import.meta.dirname, 'search-browser.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    minify: true,
    target: 'es2022',
  });
  return result.outputFiles[0]!.text;
}

/** The site's search in Chromium: the head's arrival, every file's, and a search per keystroke of each query. */
async function browserRows(section: string, stack: BenchStack, browser: Awaited<ReturnType<typeof chromium.launch>>, script: string): Promise<Row[]> {
  // The page is any of the stack's answers; the bench's own script is added to it, past the CSP.
  const context = await browser.newContext({ bypassCSP: true });
  const page = await context.newPage();
  try {
    await page.goto(`${stack.baseUrl}/api/health`);
    await page.addScriptTag({ content: script });
    const loaded = await page.evaluate(() =>
      (globalThis as unknown as { searchBench: { load(): Promise<{ headMs: number; allMs: number }> } }).searchBench.load(),
    );
    const typed = queries.map((q) => q.q);
    // A first pass compiles the code; the second is what a visitor's typing costs.
    await page.evaluate((qs) => (globalThis as unknown as { searchBench: { keystrokes(q: string[]): number[] } }).searchBench.keystrokes(qs), typed);
    const times = await page.evaluate(
      (qs) => (globalThis as unknown as { searchBench: { keystrokes(q: string[]): number[] } }).searchBench.keystrokes(qs),
      typed,
    );
    const sorted = [...times].sort((a, b) => a - b);
    const p95 = round(percentile(sorted, 95), 2);
    const paused = await page.evaluate((qs) => (globalThis as unknown as { searchBench: { pauses(q: string[]): number[] } }).searchBench.pauses(qs), typed);
    const pausedSorted = [...paused].sort((a, b) => a - b);
    return [
      { section, metric: 'browser: first results loaded (head)', value: round(loaded.headMs), unit: 'ms' },
      { section, metric: 'browser: whole index loaded', value: round(loaded.allMs), unit: 'ms' },
      { section, metric: `browser: keystroke search p50 (${times.length} keystrokes)`, value: round(percentile(sorted, 50), 2), unit: 'ms' },
      { section, metric: 'browser: keystroke search p95', value: p95, unit: 'ms', target: '≤ 5', ok: p95 <= 5 },
      { section, metric: 'browser: keystroke search max', value: round(sorted.at(-1)!, 2), unit: 'ms' },
      { section, metric: `browser: search on a pause, texts too, p50 (${paused.length} queries)`, value: round(percentile(pausedSorted, 50), 2), unit: 'ms' },
      { section, metric: 'browser: search on a pause, texts too, p95', value: round(percentile(pausedSorted, 95), 2), unit: 'ms' },
    ];
  } finally {
    await context.close();
  }
}

/** `skillpress search` as a user runs it: a new process per query. */
async function cliRows(section: string, stack: BenchStack): Promise<Row[]> {
  const bin = path.join(import.meta.dirname, '../../cli/bin.mjs');
  const times: number[] = [];
  for (const query of queries.slice(0, CLI_QUERIES)) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [bin, 'search', ...query.q.split(' '), '--registry', stack.baseUrl, '--json'], {
        stdio: 'ignore',
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`skillpress search ${query.q}: exit ${code}`))));
    });
    times.push(performance.now() - started);
  }
  return latencyRows(section, `CLI query (a process each, ${times.length} queries)`, times);
}

/** The index's files as served: the head (what the first results need) and all of them, raw and gzipped. */
async function sizeRows(section: string, stack: BenchStack): Promise<Row[]> {
  const get = async (p: string) => Buffer.from(await (await fetch(stack.baseUrl + p)).arrayBuffer());
  const head = await get('/.well-known/skillpress/search.json');
  const { shards } = JSON.parse(head.toString('utf8')) as { shards: { skills: string[]; text: string[] } };
  const others = await Promise.all([...shards.skills, ...shards.text].map(get));
  const headGz = gzipSync(head).byteLength;
  const kb = (n: number) => round(n / 1024, 1);
  return [
    { section, metric: 'index head (first results), gzipped', value: kb(headGz), unit: 'KB', target: '≤ 200', ok: headGz <= 200 * 1024 },
    { section, metric: 'index head, raw', value: kb(head.byteLength), unit: 'KB' },
    {
      section,
      metric: `index, all ${1 + others.length} files, gzipped`,
      value: kb(headGz + others.reduce((n, b) => n + gzipSync(b).byteLength, 0)),
      unit: 'KB',
    },
    { section, metric: 'index, all files, raw', value: kb(head.byteLength + others.reduce((n, b) => n + b.byteLength, 0)), unit: 'KB' },
    { section, metric: 'shards (skills + text)', value: shards.skills.length + shards.text.length, unit: 'files' },
  ];
}

async function syntheticCatalog(corpus: CorpusSkill[], browser: Awaited<ReturnType<typeof chromium.launch>>, script: string): Promise<Row[]> {
  const section = `${SECTION} ${SYNTHETIC / 1000}k`;
  const stack = await startBenchStack({ SKILLPRESS_PUBLISH_LIMIT: '1000000' });
  try {
    const { key } = await signInWithKey(stack.baseUrl, 'bench');
    const skills = await seedSkills(stack.deps, { count: SYNTHETIC, authorLogin: 'bench', listing: (i) => syntheticListing(corpus, i) });
    const started = performance.now();
    await stack.runtime.rebuildAll();
    const rebuildSeconds = (performance.now() - started) / 1000;
    const rows: Row[] = [{ section, metric: `full rebuild of ${SYNTHETIC} skills (index included)`, value: round(rebuildSeconds, 1), unit: 's' }];
    rows.push(...(await browserRows(section, stack, browser, script)));
    const apiMs: number[] = [];
    for (const query of queries) {
      const t = performance.now();
      await (await fetch(`${stack.baseUrl}/api/search?q=${encodeURIComponent(query.q)}&limit=10`)).arrayBuffer();
      apiMs.push(performance.now() - t);
    }
    rows.push(...latencyRows(section, 'API query (GET /api/search)', apiMs));
    rows.push(...(await sizeRows(section, stack)));
    rows.push(...latencyRows(section, 'publish → found by GET /api/search', await publishToFound(stack, key, skills.slice(0, 10))));
    return rows;
  } finally {
    await stack.stop();
  }
}

/** From a new version's 201 until its new word is found: the rebuild's patch of the index, then the API's next read. */
async function publishToFound(stack: BenchStack, key: string, skills: { id: string; slug: string }[]): Promise<number[]> {
  const times: number[] = [];
  for (const [n, skill] of skills.entries()) {
    const word = `zyxword${n}qv`;
    const res = await fetch(`${stack.baseUrl}/api/skills/${skill.id}/versions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        version: `2.0.${n}`,
        // The new word is in the body: a version changes the SKILL.md, not the skill's listing.
        files: [{ filename: 'SKILL.md', content: `---\nname: ${skill.slug}\ndescription: New\n---\n# New\n\nNow with ${word}.\n` }],
      }),
    });
    if (res.status !== 201) throw new Error(`version → ${res.status}`);
    const acknowledged = performance.now();
    for (;;) {
      const found = (await (await fetch(`${stack.baseUrl}/api/search?q=${word}`)).json()) as { total: number };
      if (found.total > 0) break;
      if (performance.now() - acknowledged > 60_000) throw new Error(`${word}: not found by search a minute after its publish`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    times.push(performance.now() - acknowledged);
  }
  return times;
}
