import { describe, expect, it } from 'vitest';
import { standingVerdict } from '#core/scan/standing-verdict';

describe('the verdict a version stands under', () => {
  it("is the scanner's verdict", () => {
    for (const verdict of ['clean', 'suspicious', 'malicious'] as const) expect(standingVerdict({ verdict })).toBe(verdict);
  });

  it('is clean once an admin approved the version on appeal, and for a version stored before scanning', () => {
    expect(standingVerdict({ verdict: 'suspicious', reviewed: { by: 'root', at: '2025-01-01T00:00:00.000Z' } })).toBe('clean');
    expect(standingVerdict({ verdict: 'malicious', reviewed: { by: 'root', at: '2025-01-01T00:00:00.000Z' } })).toBe('clean');
    expect(standingVerdict(undefined)).toBe('clean');
  });
});
