import { scanFiles, type ScanFile } from '#core/scan/scan';
import { ruleEngine, type Scanner } from '#functions/services/scanning';
import { benignRepos, BENIGN_REPOS_VARIABLE, realSkills } from './scan-real.ts';
import { combined, detection, HELD_OUT_DIR, loadCorpus, targets } from './scan-corpus.ts';
import { signInWithKey, startBenchStack, timedPost } from './stack.ts';
import { machineReference } from './machine-reference.ts';
import { latencyRows, percentile, round, type Row } from './table.ts';

/**
 * The scanner on its own (core/scan, no HTTP): detection on the labelled corpus, the held-out
 * corpus (never used to tune a rule) shown apart, and every skill of the public repositories named
 * in SKILLPRESS_BENIGN_REPOS; throughput over the corpus and over a version at the size limit, the
 * time to scan a typical skill and a 1 MiB version; then what the scan adds to a publish through
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
  const heldOut = loadCorpus(HELD_OUT_DIR);
  const training = detection(corpus);
  const held = detection(heldOut);
  const all = combined(training, held);
  const pct = (n: number, of: number) => round((100 * n) / Math.max(1, of));
  const rows: Row[] = [];
  for (const [name, d] of [
    ['training', training],
    ['held-out', held],
    ['all', all],
  ] as const) {
    const detected = d.malicious.total - d.malicious.missed.length;
    const isAll = name === 'all';
    rows.push(
      {
        section: 'scan',
        metric: `malicious detected, ${name} (${detected} of ${d.malicious.total})`,
        value: pct(detected, d.malicious.total),
        unit: '%',
        ...(isAll ? { target: '≥ 95', ok: targets.detectedShare(d) } : {}),
      },
      {
        section: 'scan',
        metric: `malicious blocked, ${name} (${d.malicious.blocked} of ${d.malicious.total})`,
        value: pct(d.malicious.blocked, d.malicious.total),
        unit: '%',
        ...(isAll ? { target: '≥ 85', ok: targets.blockedShare(d) } : {}),
      },
      { section: 'scan', metric: `benign flagged, ${name} (of ${d.benign.total})`, value: d.benign.flagged, unit: 'skills' },
      { section: 'scan', metric: `benign blocked, ${name}`, value: d.benign.blocked.length, unit: 'skills', target: '= 0', ok: targets.noBenignBlocked(d) },
    );
  }
  for (const slug of [...all.malicious.missed]) rows.push({ section: 'scan', metric: `missed: ${slug}`, value: 0, unit: '' });
  for (const slug of [...all.benign.blocked]) rows.push({ section: 'scan', metric: `benign blocked: ${slug}`, value: 0, unit: '' });
  rows.push(...realBenign());

  const corpusFiles = corpus.map((s) => s.files);
  rows.push({ section: 'scan', metric: 'throughput over the corpus', value: throughput(corpusFiles), unit: 'MB/s' });
  rows.push({ section: 'scan', metric: 'throughput, 5 MiB version (20 files)', value: throughput([largeSkill(corpusFiles)]), unit: 'MB/s' });
  // The machine reference is timed between the scans, so its figure is the machine's state while they ran.
  const reference: number[] = [];
  rows.push(...latencyRows('scan', '1 MiB version (4 files of skill-like text and scripts)', timed(mibSkill(corpusFiles), 20, reference), { p50: 250 }));
  rows.push(...latencyRows('scan', 'machine reference between the 1 MiB scans (fixed text work, no Skillpress code)', reference.splice(0)));

  const typical = typicalSkill(corpus.filter((s) => s.label === 'benign').map((s) => s.files));
  for (let i = 0; i < WARMUP; i++) scanFiles(typical);
  const times: number[] = [];
  for (let i = 0; i < TYPICAL_RUNS; i++) {
    if (i % 25 === 0) reference.push(machineReference());
    const start = performance.now();
    scanFiles(typical);
    times.push(performance.now() - start);
  }
  const kb = round(typical.reduce((n, f) => n + f.bytes.byteLength, 0) / 1024);
  rows.push(...latencyRows('scan', `typical skill scan (${kb} kB, ${typical.length} files)`, times, { p50: 5, p95: 10 }));
  rows.push(...latencyRows('scan', 'machine reference between the typical scans', reference));
  rows.push(...(await publishLatency(typical)));
  return rows;
}

/**
 * The typical skill published as new versions through the API of the local runtime, alternating
 * between the rule engine and a scanner that answers at once with the engine's own result for
 * these files, so both arms store the same findings and share the same warm process, store and
 * machine load. The difference is what running the scan adds to a publish; the scan is also
 * timed where it runs, in the server. Locally the API, DynamoDB, S3 and the background rebuild's
 * requests share one event loop, so the difference also holds the requests that waited while the
 * scan ran; the scan's own time is what a publish spends on it.
 */
async function publishLatency(typical: ScanFile[]): Promise<Row[]> {
  let scanning = true;
  const recorded = await ruleEngine(typical, { quote: true });
  const noScan: Scanner = async () => recorded;
  const served: number[] = [];
  const timedEngine: Scanner = async (files, options) => {
    const start = performance.now();
    const result = await ruleEngine(files, options);
    served.push(performance.now() - start);
    return result;
  };
  const stack = await startBenchStack(
    { SKILLPRESS_PUBLISH_LIMIT: '100000', SKILLPRESS_VERSION_LIMIT: '100000' },
    { scanner: (files, options) => (scanning ? timedEngine : noScan)(files, options) },
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
      else served.length = 0;
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
      ...latencyRows('scan', 'publish a typical skill version, its findings given without scanning', times.without),
      { section: 'scan', metric: 'publish latency the scan adds (difference of p50s)', value: round(median(times.with) - median(times.without)), unit: 'ms' },
      { section: 'scan', metric: 'publish latency the scan adds (median of paired differences)', value: round(paired), unit: 'ms' },
      ...latencyRows('scan', 'the scan of a typical skill inside a publish, timed in the server', served),
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

/**
 * Every skill of the real repositories: none may be refused and at most 3% flagged. Each flagged
 * or refused skill is listed with its worst finding, so a table shows what remains.
 */
function realBenign(): Row[] {
  const { present, missing } = benignRepos();
  if (present.length === 0) {
    console.log(`scan: no real benign repositories (set ${BENIGN_REPOS_VARIABLE} to git directories, separated by ':')`);
    return [{ section: 'scan', metric: `real skills: none given (${BENIGN_REPOS_VARIABLE})`, value: 0, unit: 'skills' }];
  }
  for (const dir of missing) console.log(`scan: ${dir} (from ${BENIGN_REPOS_VARIABLE}) does not exist; left out`);
  let total = 0;
  const flagged: string[] = [];
  const blocked: string[] = [];
  const times: number[] = [];
  for (const dir of present) {
    for (const skill of realSkills(dir)) {
      total++;
      const start = performance.now();
      const { verdict, findings } = scanFiles(skill.files);
      times.push(performance.now() - start);
      if (verdict === 'clean') continue;
      const worst = findings.find((f) => f.severity === (verdict === 'malicious' ? 'critical' : 'high')) ?? findings.find((f) => f.severity !== 'low');
      const line = `${skill.name}: ${worst ? `${worst.rule} at ${worst.file}:${worst.line}` : ''}`;
      (verdict === 'malicious' ? blocked : flagged).push(line);
    }
  }
  for (const line of blocked) console.log(`scan: real skill refused: ${line}`);
  for (const line of flagged) console.log(`scan: real skill flagged: ${line}`);
  const share = round((100 * flagged.length) / Math.max(1, total));
  return [
    { section: 'scan', metric: `real skills scanned (${present.length} repositories)`, value: total, unit: 'skills' },
    { section: 'scan', metric: 'real skills blocked', value: blocked.length, unit: 'skills', target: '= 0', ok: blocked.length === 0 },
    { section: 'scan', metric: `real skills flagged (${flagged.length})`, value: share, unit: '%', target: '≤ 3', ok: share <= 3 },
    ...latencyRows(
      'scan',
      'real skill scan',
      times.sort((a, b) => a - b),
    ),
  ];
}

/** Times of `runs` scans of one version, after a few untimed ones, each after a run of the machine reference. */
function timed(files: ScanFile[], runs: number, reference: number[]): number[] {
  for (let i = 0; i < 3; i++) scanFiles(files);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    reference.push(machineReference());
    const start = performance.now();
    scanFiles(files);
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

/** A 1 MiB version: a SKILL.md and three files of the corpus's text and scripts, 256 KiB each. */
export function mibSkill(corpus: ScanFile[][]): ScanFile[] {
  const text = benignText(corpus);
  const scripts = corpus
    .flat()
    .filter((f) => /\.(?:sh|py|js)$/.test(f.filename))
    .map((f) => new TextDecoder().decode(f.bytes))
    .join('\n');
  const fill = (s: string) => s.repeat(Math.ceil((256 * 1024) / Math.max(1, s.length))).slice(0, 256 * 1024);
  const encode = (s: string) => new TextEncoder().encode(s);
  return [
    { filename: 'SKILL.md', bytes: encode(`---\nname: big\ndescription: big\n---\n${fill(text)}`) },
    { filename: 'references/guide.md', bytes: encode(fill(text)) },
    { filename: 'scripts/all.sh', bytes: encode(fill(scripts)) },
    { filename: 'scripts/all.py', bytes: encode(fill(scripts)) },
  ];
}
