import { describe, expect, it } from 'vitest';
import { detection, loadCorpus, targets } from '#scripts/bench/scan-corpus';
import { scanFiles } from '#core/scan/scan';

const corpus = loadCorpus();
const decoder = new TextDecoder();

describe('the labelled corpus', () => {
  it('has at least 30 malicious and 30 benign samples, each a skill with valid front matter', () => {
    expect(corpus.filter((s) => s.label === 'malicious').length).toBeGreaterThanOrEqual(30);
    expect(corpus.filter((s) => s.label === 'benign').length).toBeGreaterThanOrEqual(30);
    for (const sample of corpus) {
      const skill = sample.files.find((f) => f.filename === 'SKILL.md');
      expect(skill, sample.slug).toBeDefined();
      expect(decoder.decode(skill!.bytes), sample.slug).toMatch(new RegExp(`^---\\nname: ${sample.slug}\\ndescription: [^\\n]{1,1024}\\n`));
    }
  });

  // A malicious sample expected `flagged` must come to at least suspicious, one expected
  // `blocked` to malicious; a benign sample expected `clean` must be clean, one expected `flagged`
  // at most suspicious.
  it.each(corpus.filter((s) => s.label === 'malicious').map((s) => [s.slug, s] as const))('catches malicious %s', (_, sample) => {
    const { verdict, findings } = scanFiles(sample.files);
    if (sample.expect === 'blocked') expect(verdict, JSON.stringify(findings, null, 1)).toBe('malicious');
    else expect(verdict).not.toBe('clean');
  });

  it.each(corpus.filter((s) => s.label === 'benign').map((s) => [s.slug, s] as const))('lets benign %s through', (_, sample) => {
    const { verdict, findings } = scanFiles(sample.files);
    if (sample.expect === 'clean') expect(verdict, JSON.stringify(findings, null, 1)).toBe('clean');
    else expect(verdict).not.toBe('malicious');
  });

  it('meets the targets: every malicious sample flagged, 80% blocked, no benign blocked, at most 1 in 20 flagged', () => {
    const d = detection(corpus);
    expect(d.malicious.missed).toEqual([]);
    expect(d.benign.blocked).toEqual([]);
    expect(targets.noneMissed(d) && targets.blockedShare(d) && targets.noBenignBlocked(d) && targets.benignFlaggedShare(d)).toBe(true);
    expect(d.unexpected).toEqual([]);
  });
});
