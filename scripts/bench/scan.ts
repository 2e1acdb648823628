import { scanFiles, type ScanFile } from '#core/scan/scan';
import { detection, loadCorpus, targets } from './scan-corpus.ts';
import { latencyRows, round, type Row } from './table.ts';

/**
 * The scanner on its own (core/scan, no HTTP): detection on the labelled corpus against the
 * targets of issue 22, throughput over the corpus and over a synthetic version at the size
 * limit, and the time to scan a typical skill. What the scan adds to a publish through the API
 * is the engine's time plus nothing that waits (it is synchronous and in memory); the publish
 * section measures the request end to end.
 */
const WARMUP = 50;
const TYPICAL_RUNS = 500;
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

  const typical = typicalSkill(corpusFiles);
  for (let i = 0; i < WARMUP; i++) scanFiles(typical);
  const times: number[] = [];
  for (let i = 0; i < TYPICAL_RUNS; i++) {
    const start = performance.now();
    scanFiles(typical);
    times.push(performance.now() - start);
  }
  const kb = round(typical.reduce((n, f) => n + f.bytes.byteLength, 0) / 1024);
  rows.push(...latencyRows('scan', `typical skill scan (${kb} kB, ${typical.length} files)`, times, { p50: 5, p95: 10 }));
  return rows;
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
 * text. Exported so the publish benchmark can send the same skill through the API.
 */
export function typicalSkill(corpus: ScanFile[][] = loadCorpus().map((s) => s.files)): ScanFile[] {
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
