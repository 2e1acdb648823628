import { scanFiles, type ScanFile } from '#core/scan/scan';
import { ruleEngine, type Scanner } from '#functions/services/scanning';
import { detection, loadCorpus, targets } from './scan-corpus.ts';
import { signInWithKey, startBenchStack, timedPost } from './stack.ts';
import { latencyRows, percentile, round, type Row } from './table.ts';

/**
 * The scanner on its own (core/scan, no HTTP): detection on the labelled corpus against the
 * targets of issue 22, throughput over the corpus and over a synthetic version at the size
 * limit, and the time to scan a typical skill; then what the scan adds to a publish through
 * the real API (HTTP, DynamoDB, S3 and all), measured against the same publish with the engine
 * switched off.
 */
const WARMUP = 50;
const TYPICAL_RUNS = 500;
/** Versions published through the API per arm (with and without the scan), alternating. */
const PUBLISHES = 150;
const MB = 1024 * 1024;

export async function benchScan(): Promise<Row[]> {
  const corpus = loadCorpus();
  const d = detection(corpus);
  const pct = (n: number, of: number) => round((100 * n) / of);
  const rows: Row[] = [
    { section: 'scan', metric: `malicious blocked (of ${d.malicious.total})`, value: d.malicious.blocked, unit: 'skills' },
    {
      section: 'scan',
      metric: 'malicious blocked share',
      value: pct(d.malicious.blocked, d.malicious.total),
      unit: '%',
      target: '≥ 80',
      ok: targets.blockedShare(d),
    },
    { section: 'scan', metric: 'malicious flagged (suspicious)', value: d.malicious.flagged, unit: 'skills' },
    { section: 'scan', metric: 'malicious missed', value: d.malicious.missed.length, unit: 'skills', target: '= 0', ok: targets.noneMissed(d) },
    { section: 'scan', metric: `benign clean (of ${d.benign.total})`, value: d.benign.clean, unit: 'skills' },
    {
      section: 'scan',
      metric: 'benign flagged share',
      value: pct(d.benign.flagged, d.benign.total),
      unit: '%',
      target: '≤ 5',
      ok: targets.benignFlaggedShare(d),
    },
    {
      section: 'scan',
      metric: 'benign blocked (false positives)',
      value: d.benign.blocked.length,
      unit: 'skills',
      target: '= 0',
      ok: targets.noBenignBlocked(d),
    },
  ];

  const corpusFiles = corpus.map((s) => s.files);
  rows.push({ section: 'scan', metric: 'throughput over the corpus', value: throughput(corpusFiles), unit: 'MB/s' });
  rows.push({ section: 'scan', metric: 'throughput, 5 MiB version (20 files)', value: throughput([largeSkill(corpusFiles)]), unit: 'MB/s' });

  const typical = typicalSkill(corpus.filter((s) => s.label === 'benign').map((s) => s.files));
  for (let i = 0; i < WARMUP; i++) scanFiles(typical);
  const times: number[] = [];
  for (let i = 0; i < TYPICAL_RUNS; i++) {
    const start = performance.now();
    scanFiles(typical);
    times.push(performance.now() - start);
  }
  const kb = round(typical.reduce((n, f) => n + f.bytes.byteLength, 0) / 1024);
  rows.push(...latencyRows('scan', `typical skill scan (${kb} kB, ${typical.length} files)`, times, { p50: 5, p95: 10 }));
  rows.push(...(await publishLatency(typical)));
  return rows;
}

/**
 * The typical skill published as new versions through the API of the local runtime, alternating
 * between the rule engine and a scanner that finds nothing at once, so both arms share the same
 * warm process, store and machine load. The difference of the medians is what the scan adds.
 */
async function publishLatency(typical: ScanFile[]): Promise<Row[]> {
  let scanning = true;
  const noScan: Scanner = async () => ({ verdict: 'clean', rulesVersion: 'none', findings: [] });
  const stack = await startBenchStack(
    { SKILLPRESS_PUBLISH_LIMIT: '100000' },
    { scanner: (files, options) => (scanning ? ruleEngine : noScan)(files, options) },
  );
  try {
    const { key } = await signInWithKey(stack.baseUrl, 'bench-scan');
    const files = typical.map((f) => ({ filename: f.filename, content: new TextDecoder().decode(f.bytes) }));
    const post = timedPost(stack.baseUrl, key);
    // The slug is the name its SKILL.md gives, as every version's must be.
    const { body: skill } = await post('/api/publish', { name: 'Bench typical skill', slug: 'typical', description: 'bench', category: 'bench', files });
    const times = { with: [] as number[], without: [] as number[] };
    for (let i = 1; i <= 2 * PUBLISHES + 20; i++) {
      scanning = i % 2 === 0;
      const { ms } = await post(`/api/skills/${skill.id}/versions`, { version: `1.${i}.0`, files });
      // The first requests warm the connections, the JIT and the engine's first import.
      if (i > 20) times[scanning ? 'with' : 'without'].push(ms);
    }
    const median = (samples: number[]) =>
      percentile(
        [...samples].sort((a, b) => a - b),
        50,
      );
    // Neighbouring requests share the machine's load: the median of their differences is the
    // steadier figure on a busy machine; the difference of the medians is shown beside it.
    const paired = median(times.with.map((ms, i) => ms - times.without[i]!));
    return [
      ...latencyRows('scan', 'publish a typical skill version, with the scan', times.with),
      ...latencyRows('scan', 'publish a typical skill version, without the scan', times.without),
      { section: 'scan', metric: 'publish latency the scan adds (difference of p50s)', value: round(median(times.with) - median(times.without)), unit: 'ms' },
      {
        section: 'scan',
        metric: 'publish latency the scan adds (median of paired differences)',
        value: round(paired),
        unit: 'ms',
        target: '≤ 5',
        ok: paired <= 5,
      },
    ];
  } finally {
    await stack.stop();
  }
}

/** MB/s over some versions, after one untimed pass to warm the JIT. */
function throughput(versions: ScanFile[][]): number {
  const bytes = versions.reduce((n, files) => n + files.reduce((m, f) => m + f.bytes.byteLength, 0), 0);
  for (const files of versions) scanFiles(files);
  const rounds = Math.max(1, Math.ceil((20 * MB) / bytes));
  const start = performance.now();
  for (let r = 0; r < rounds; r++) for (const files of versions) scanFiles(files);
  const seconds = (performance.now() - start) / 1000;
  return round((bytes * rounds) / MB / seconds);
}

/** The benign corpus's text files, concatenated: the kind of content a skill is made of. */
function benignText(corpus: ScanFile[][]): string {
  const decoder = new TextDecoder('utf-8', { fatal: false });
  return corpus
    .slice(-30)
    .flat()
    .filter((f) => /\.(md|py|sh|js|mjs|ps1|json|yaml|html)$/.test(f.filename))
    .map((f) => decoder.decode(f.bytes))
    .join('\n');
}

/**
 * A typical skill: a SKILL.md of about 10 kB and three scripts, made of the benign corpus's
 * text (`corpus` holds benign samples only: a typical skill is an honest one, and it has to
 * publish). Exported so other benchmarks can send the same skill through the API.
 */
export function typicalSkill(
  corpus: ScanFile[][] = loadCorpus()
    .filter((s) => s.label === 'benign')
    .map((s) => s.files),
): ScanFile[] {
  const text = benignText(corpus);
  const encode = (s: string) => new TextEncoder().encode(s);
  const scripts = corpus
    .flat()
    .filter((f) => /^scripts\/.+\.(py|sh)$/.test(f.filename))
    .slice(0, 3);
  return [{ filename: 'SKILL.md', bytes: encode(`---\nname: typical\ndescription: a typical skill\n---\n${text.slice(0, 10_000)}`) }, ...scripts];
}

/** A version at the size limit: 20 files of 256 kB of skill-like text. */
function largeSkill(corpus: ScanFile[][]): ScanFile[] {
  const text = benignText(corpus);
  const chunk = text.repeat(Math.ceil((256 * 1024) / text.length)).slice(0, 256 * 1024);
  return Array.from({ length: 20 }, (_, i) => ({ filename: i === 0 ? 'SKILL.md' : `references/part-${i}.md`, bytes: new TextEncoder().encode(chunk) }));
}
