import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ScanFile } from '#core/scan/scan';

/**
 * The labelled scanning corpus in test/fixtures/scan: skills written from published
 * descriptions of real attacks on skill registries (`malicious/`) and skills that look like
 * honest ones (`benign/`). manifest.json says what each must at least or at most come to.
 */

export const CORPUS_DIR = path.resolve(import.meta.dirname, '../../test/fixtures/scan');

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

/** Every sample of the corpus with its label and expectation; a folder missing from the manifest is an error. */
export function loadCorpus(): CorpusSample[] {
  const manifest = JSON.parse(readFileSync(path.join(CORPUS_DIR, 'manifest.json'), 'utf8')) as Manifest;
  return (['malicious', 'benign'] as const).flatMap((label) =>
    readdirSync(path.join(CORPUS_DIR, label))
      .sort()
      .map((slug) => {
        const entry = manifest[label][slug];
        if (!entry) throw new Error(`test/fixtures/scan/${label}/${slug} is not in manifest.json`);
        const files = filesUnder(path.join(CORPUS_DIR, label, slug));
        return { slug, label, expect: entry.expect, source: entry.source, files, bytes: files.reduce((n, f) => n + f.bytes.byteLength, 0) };
      }),
  );
}
