import { describe, expect, it } from 'vitest';
import { standingVerdict } from '#core/scan/standing-verdict';

const reviewed = { by: 'root', at: '2025-01-01T00:00:00.000Z' };
const ran = (verdict: 'clean' | 'suspicious' | 'malicious') => ({ verdict, evidence: verdict === 'clean' ? [] : [{ rule: 'persistence', verdict }] });

describe('the verdict a version stands under', () => {
  it("is the scanner's verdict while the version has not been run", () => {
    for (const verdict of ['clean', 'suspicious', 'malicious'] as const) expect(standingVerdict({ scan: { verdict } })).toBe(verdict);
  });

  it('counts the scan as clean once an admin approved the version on appeal, and for a version stored before scanning', () => {
    expect(standingVerdict({ scan: { verdict: 'suspicious', reviewed } })).toBe('clean');
    expect(standingVerdict({ scan: { verdict: 'malicious', reviewed } })).toBe('clean');
    expect(standingVerdict({})).toBe('clean');
    expect(standingVerdict(undefined)).toBe('clean');
  });

  it('is the worse of what the scan and the run in the sandbox came to', () => {
    expect(standingVerdict({ scan: { verdict: 'clean' }, observation: ran('suspicious') })).toBe('suspicious');
    expect(standingVerdict({ scan: { verdict: 'suspicious' }, observation: ran('clean') })).toBe('suspicious');
    expect(standingVerdict({ scan: { verdict: 'clean' }, observation: ran('clean') })).toBe('clean');
    // An approval on appeal read the scan's findings, not what the version did since.
    expect(standingVerdict({ scan: { verdict: 'suspicious', reviewed }, observation: ran('suspicious') })).toBe('suspicious');
  });
});
