import { scanFiles, type ScanFile } from '#core/scan/scan';
import { ruleEngine, type Scanner } from '#functions/services/scanning';
import { hasRunnableContent } from '#core/behaviour/plan';
import { benignRepos, BENIGN_REPOS_VARIABLE, type RealSkill, realSkills, UNSEEN_REPOS_VARIABLE } from './scan-real.ts';
import { type CorpusSample, type Detection, detection, HELD_OUT_DIR, INCIDENTS_DIR, loadCorpus, neededChanges, targets } from './scan-corpus.ts';
import { type Combined, combinedVerdict, sandboxAvailable } from './scan-observed.ts';
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
  const sandbox = sandboxAvailable();
  if (!sandbox) console.log('scan: no sandbox here (bubblewrap and strace), or SKILLPRESS_BENCH_SANDBOX=0: the combined rows are the scan alone');
  const rows: Row[] = [];
  const sets = [
    { name: '(a) training, written before each class', samples: corpus },
    { name: '(a) held-out, written before the second-generation rules', samples: loadCorpus(HELD_OUT_DIR) },
    { name: '(b) incidents, written only from public reports', samples: loadCorpus(INCIDENTS_DIR) },
  ];
  const changed = new Set(neededChanges().map((c) => c.slug));
  for (const set of sets) {
    const combined = await combinedVerdicts(set.samples, sandbox);
    const d = detection(set.samples, new Map([...combined].map(([slug, c]) => [slug, c.verdict])));
    rows.push(...detectionRows(`${set.name}, scan alone`, detection(set.samples), false));
    rows.push(...detectionRows(`${set.name}, scan + sandbox`, d, true));
    for (const slug of d.malicious.missed) rows.push({ section: 'scan', metric: `missed: ${slug} (${why(combined.get(slug))})`, value: 0, unit: '' });
    for (const u of d.unexpected.filter((x) => x.label === 'malicious' && x.verdict === 'suspicious'))
      rows.push({ section: 'scan', metric: `flagged, not blocked: ${u.slug} (${why(combined.get(u.slug))})`, value: 0, unit: '' });
    for (const slug of d.benign.blocked) rows.push({ section: 'scan', metric: `benign blocked: ${slug} (${why(combined.get(slug))})`, value: 0, unit: '' });
  }
  const incidents = sets[2]!.samples;
  rows.push({
    section: 'scan',
    metric: `(c) incident samples that needed a rule change (${[...changed].join(', ') || 'none'})`,
    value: changed.size,
    unit: `of ${incidents.filter((s) => s.label === 'malicious').length}`,
  });
  const unseen = detection(incidents.filter((s) => !changed.has(s.slug)));
  rows.push(...detectionRows('(b) without (c), scan alone', unseen, false));
  rows.push(...(await realBenign(sandbox)));
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

/** The four rows of a detection: malicious detected and blocked, benign flagged and blocked; targets on the combined verdict. */
function detectionRows(name: string, d: Detection, withTargets: boolean): Row[] {
  const pct = (n: number, of: number) => round((100 * n) / Math.max(1, of));
  const detected = d.malicious.total - d.malicious.missed.length;
  const target = <T extends object>(t: T) => (withTargets ? t : {});
  return [
    {
      section: 'scan',
      metric: `malicious detected, ${name} (${detected} of ${d.malicious.total})`,
      value: pct(detected, d.malicious.total),
      unit: '%',
      ...target({ target: '≥ 95', ok: targets.detectedShare(d) }),
    },
    {
      section: 'scan',
      metric: `malicious blocked, ${name} (${d.malicious.blocked} of ${d.malicious.total})`,
      value: pct(d.malicious.blocked, d.malicious.total),
      unit: '%',
      ...target({ target: '≥ 85', ok: targets.blockedShare(d) }),
    },
    { section: 'scan', metric: `benign flagged, ${name} (of ${d.benign.total})`, value: d.benign.flagged, unit: 'skills' },
    {
      section: 'scan',
      metric: `benign blocked, ${name}`,
      value: d.benign.blocked.length,
      unit: 'skills',
      ...target({ target: '= 0', ok: targets.noBenignBlocked(d) }),
    },
  ];
}

/** Each sample's combined verdict, by slug. */
async function combinedVerdicts(samples: readonly CorpusSample[], sandbox: boolean): Promise<Map<string, Combined>> {
  const out = new Map<string, Combined>();
  for (const sample of samples) out.set(sample.slug, await combinedVerdict(sample.files, sandbox));
  return out;
}

/** Why a sample came to what it did: the scan's verdict, and the run's with its first block. */
function why(c: Combined | undefined): string {
  if (!c) return '';
  const run = c.observed ? `run: ${c.observed.verdict}, ${c.observed.why.slice(0, 160)}` : 'not run: nothing runnable, or no sandbox';
  return `scan: ${c.scan}; ${run}`;
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

/** Runnable real skills observed in the sandbox by default: each run takes seconds, so a bounded sample (SKILLPRESS_BENCH_RUNS). */
const OBSERVED_REAL = 12;

/**
 * Every skill of the real repositories: none may be refused and at most 3% flagged. The
 * repositories named in SKILLPRESS_BENIGN_REPOS are those the rules were measured on; those in
 * SKILLPRESS_UNSEEN_REPOS were never used to tune anything and are a row of their own. Each
 * flagged or refused skill is listed with its worst finding. Then a bounded sample of the
 * runnable ones is run in the sandbox: what observing adds to publish → installable (its p50 and
 * p95), and the combined verdict of those it ran.
 */
async function realBenign(sandbox: boolean): Promise<Row[]> {
  const rows: Row[] = [];
  const runnable: RealSkill[] = [];
  for (const [label, variable] of [
    ['real skills', BENIGN_REPOS_VARIABLE],
    ['unseen real skills', UNSEEN_REPOS_VARIABLE],
  ] as const) {
    const { present, missing } = benignRepos(process.env, variable);
    for (const dir of missing) console.log(`scan: ${dir} (from ${variable}) does not exist; left out`);
    if (present.length === 0) {
      rows.push({ section: 'scan', metric: `${label}: none given (${variable})`, value: 0, unit: 'skills' });
      continue;
    }
    const skills = present.flatMap((dir) => realSkills(dir));
    runnable.push(...skills.filter((s) => hasRunnableContent(s.files)));
    rows.push(...realRows(label, present.length, skills));
  }
  if (!sandbox || runnable.length === 0) return rows;
  const runs = Number(process.env.SKILLPRESS_BENCH_RUNS ?? OBSERVED_REAL);
  const step = Math.max(1, Math.floor(runnable.length / runs));
  const sample = runnable.filter((_, i) => i % step === 0).slice(0, runs);
  const times: number[] = [];
  const refused: string[] = [];
  const flagged: string[] = [];
  for (const skill of sample) {
    const c = await combinedVerdict(skill.files, true, true);
    times.push(c.observed!.ms);
    if (c.verdict === 'malicious') refused.push(`${skill.name} (${why(c)})`);
    else if (c.verdict === 'suspicious') flagged.push(`${skill.name} (${why(c)})`);
  }
  for (const line of refused) console.log(`scan: real skill refused with the sandbox: ${line}`);
  for (const line of flagged) console.log(`scan: real skill flagged with the sandbox: ${line}`);
  return [
    ...rows,
    { section: 'scan', metric: `real skills with runnable content (of them ${sample.length} observed)`, value: runnable.length, unit: 'skills' },
    { section: 'scan', metric: 'observed real skills blocked, scan + sandbox', value: refused.length, unit: 'skills', target: '= 0', ok: refused.length === 0 },
    { section: 'scan', metric: 'observed real skills flagged, scan + sandbox', value: flagged.length, unit: 'skills' },
    ...latencyRows(
      'scan',
      'observeVersion of a real skill (both passes: what the sandbox adds to publish → installable)',
      times.sort((a, b) => a - b),
    ),
  ];
}

function realRows(label: string, repositories: number, skills: readonly RealSkill[]): Row[] {
  const flagged: string[] = [];
  const blocked: string[] = [];
  const times: number[] = [];
  for (const skill of skills) {
    const start = performance.now();
    const { verdict, findings } = scanFiles(skill.files);
    times.push(performance.now() - start);
    if (verdict === 'clean') continue;
    const worst = findings.find((f) => f.severity === (verdict === 'malicious' ? 'critical' : 'high')) ?? findings.find((f) => f.severity !== 'low');
    const line = `${skill.name}: ${worst ? `${worst.rule} at ${worst.file}:${worst.line}` : ''}`;
    (verdict === 'malicious' ? blocked : flagged).push(line);
  }
  for (const line of blocked) console.log(`scan: ${label}: refused: ${line}`);
  for (const line of flagged) console.log(`scan: ${label}: flagged: ${line}`);
  const share = round((100 * flagged.length) / Math.max(1, skills.length));
  return [
    { section: 'scan', metric: `${label} scanned (${repositories} repositories)`, value: skills.length, unit: 'skills' },
    { section: 'scan', metric: `${label} blocked`, value: blocked.length, unit: 'skills', target: '= 0', ok: blocked.length === 0 },
    { section: 'scan', metric: `${label} flagged (${flagged.length})`, value: share, unit: '%', target: '≤ 3', ok: share <= 3 },
    ...latencyRows(
      'scan',
      `${label} scan`,
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
