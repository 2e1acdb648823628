import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Verdict } from '#core/scan/finding';
import { scanFiles, type ScanFile } from '#core/scan/scan';

/**
 * The labelled scanning corpus in test/fixtures/scan: skills written from published
 * descriptions of real attacks on skill registries (`malicious/`) and skills that look like
 * honest ones (`benign/`). manifest.json says what each must at least or at most come to.
 */

export const CORPUS_DIR = path.resolve(import.meta.dirname, '../../test/fixtures/scan');
/** Samples put aside before the rules were written and never used to tune them (see its README). */
export const HELD_OUT_DIR = path.join(CORPUS_DIR, 'held-out');
/** Samples written only from public incident reports, before they were scanned or run (see its README). */
export const INCIDENTS_DIR = path.join(CORPUS_DIR, 'incidents');

/** The incident samples that needed a change in the engine to be found, with the change (the incidents' needed-changes.json). */
export function neededChanges(dir = INCIDENTS_DIR): Array<{ slug: string; change: string; when: string }> {
  return JSON.parse(readFileSync(path.join(dir, 'needed-changes.json'), 'utf8'));
}

/** For a malicious sample: `blocked` (must be refused) or `flagged` (suspicious is enough). For a benign one: `clean`, or `flagged` at most. */
export type Expectation = 'blocked' | 'flagged' | 'clean';

export interface CorpusSample {
  slug: string;
  label: 'malicious' | 'benign';
  expect: Expectation;
  /** Where the technique comes from, for a reader of the corpus. */
  source: string;
  files: ScanFile[];
  bytes: number;
}

interface Manifest {
  malicious: Record<string, { expect: 'blocked' | 'flagged'; source: string }>;
  benign: Record<string, { expect: 'clean' | 'flagged'; source: string }>;
}

function filesUnder(dir: string, prefix = ''): ScanFile[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      const rel = prefix ? `${prefix}/${name}` : name;
      if (statSync(full).isDirectory()) return filesUnder(full, rel);
      return [{ filename: rel, bytes: new Uint8Array(readFileSync(full)), executable: (statSync(full).mode & 0o111) !== 0 }];
    });
}

/** Every sample of a corpus with its label and expectation; a folder missing from the manifest is an error. */
export function loadCorpus(dir = CORPUS_DIR): CorpusSample[] {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  return (['malicious', 'benign'] as const).flatMap((label) =>
    readdirSync(path.join(dir, label))
      .sort()
      .map((slug) => {
        const entry = manifest[label][slug];
        if (!entry) throw new Error(`${path.relative(CORPUS_DIR, dir) || '.'}/${label}/${slug} is not in manifest.json`);
        const files = filesUnder(path.join(dir, label, slug));
        return { slug, label, expect: entry.expect, source: entry.source, files, bytes: files.reduce((n, f) => n + f.bytes.byteLength, 0) };
      }),
  );
}

export interface Detection {
  malicious: { total: number; blocked: number; flagged: number; missed: string[] };
  benign: { total: number; clean: number; flagged: number; blocked: string[] };
  /** Samples that came to less (malicious) or more (benign) than the manifest expects. */
  unexpected: Array<{ slug: string; label: CorpusSample['label']; expect: Expectation; verdict: Verdict }>;
}

/**
 * Counts what was concluded of every sample against what the manifest expects: the scanner's
 * verdict, or the one given for the sample (by slug) when there is one.
 */
export function detection(samples: readonly CorpusSample[], given: ReadonlyMap<string, Verdict> = new Map()): Detection {
  const d: Detection = {
    malicious: { total: 0, blocked: 0, flagged: 0, missed: [] },
    benign: { total: 0, clean: 0, flagged: 0, blocked: [] },
    unexpected: [],
  };
  for (const sample of samples) {
    const verdict = given.get(sample.slug) ?? scanFiles(sample.files).verdict;
    if (sample.label === 'malicious') {
      d.malicious.total++;
      if (verdict === 'malicious') d.malicious.blocked++;
      else if (verdict === 'suspicious') d.malicious.flagged++;
      else d.malicious.missed.push(sample.slug);
      if (verdict === 'clean' || (sample.expect === 'blocked' && verdict !== 'malicious'))
        d.unexpected.push({ slug: sample.slug, label: sample.label, expect: sample.expect, verdict });
    } else {
      d.benign.total++;
      if (verdict === 'clean') d.benign.clean++;
      else if (verdict === 'suspicious') d.benign.flagged++;
      else d.benign.blocked.push(sample.slug);
      if (verdict === 'malicious' || (sample.expect === 'clean' && verdict !== 'clean'))
        d.unexpected.push({ slug: sample.slug, label: sample.label, expect: sample.expect, verdict });
    }
  }
  return d;
}

/**
 * The targets: at least 95% of malicious samples detected (flagged or blocked) and 85% blocked,
 * the held-out samples included; no benign sample blocked (the tricky ones included), at most 1
 * in 20 of the labelled benign samples flagged.
 */
export const targets = {
  detectedShare: (d: Detection) => (d.malicious.total - d.malicious.missed.length) / d.malicious.total >= 0.95,
  blockedShare: (d: Detection) => d.malicious.blocked / d.malicious.total >= 0.85,
  noBenignBlocked: (d: Detection) => d.benign.blocked.length === 0,
  benignFlaggedShare: (d: Detection) => d.benign.flagged / d.benign.total <= 1 / 20,
};

/** Two detections as one (the training and the held-out corpus together). */
export function combined(a: Detection, b: Detection): Detection {
  return {
    malicious: {
      total: a.malicious.total + b.malicious.total,
      blocked: a.malicious.blocked + b.malicious.blocked,
      flagged: a.malicious.flagged + b.malicious.flagged,
      missed: [...a.malicious.missed, ...b.malicious.missed],
    },
    benign: {
      total: a.benign.total + b.benign.total,
      clean: a.benign.clean + b.benign.clean,
      flagged: a.benign.flagged + b.benign.flagged,
      blocked: [...a.benign.blocked, ...b.benign.blocked],
    },
    unexpected: [...a.unexpected, ...b.unexpected],
  };
}
