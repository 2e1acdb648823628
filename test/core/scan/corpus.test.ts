import { describe, expect, it } from 'vitest';
import { combined, detection, HELD_OUT_DIR, loadCorpus, targets } from '#scripts/bench/scan-corpus';
import { scanFiles } from '#core/scan/scan';

const corpus = loadCorpus();
const heldOut = loadCorpus(HELD_OUT_DIR);
const decoder = new TextDecoder();

describe('the labelled corpus', () => {
  it('has at least 120 malicious and 40 tricky benign samples, a third of each held out, each a skill with valid front matter', () => {
    const count = (samples: typeof corpus, label: string) => samples.filter((s) => s.label === label).length;
    expect(count(corpus, 'malicious') + count(heldOut, 'malicious')).toBeGreaterThanOrEqual(120);
    expect(count(heldOut, 'malicious') * 3).toBeGreaterThanOrEqual(count(corpus, 'malicious') + count(heldOut, 'malicious') - 2);
    expect(count(heldOut, 'benign')).toBeGreaterThanOrEqual(14);
    for (const sample of [...corpus, ...heldOut]) {
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

  it('meets the targets on the training corpus: every sample as labelled, no benign blocked, at most 1 in 20 flagged', () => {
    const d = detection(corpus);
    expect(d.benign.blocked).toEqual([]);
    expect(targets.benignFlaggedShare(d)).toBe(true);
    expect(d.unexpected).toEqual([]);
  });

  // The held-out samples are not asserted one by one: a rule is never changed to make one pass.
  // Together with the training corpus they must still meet the targets, and no benign one may be refused.
  it('meets the targets with the held-out samples included: 95% detected, 85% blocked, no benign blocked', () => {
    const d = combined(detection(corpus), detection(heldOut));
    expect(d.benign.blocked).toEqual([]);
    expect(targets.detectedShare(d) && targets.blockedShare(d)).toBe(true);
  });
});
