import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hidesSkill, type REPORT_REASONS, type ReporterStanding, reportWeight } from '#core/moderation';

const standing = (overrides: Partial<ReporterStanding> = {}): ReporterStanding => ({
  accountDays: 400,
  skills: 0,
  installs: 0,
  upheld: 0,
  dismissed: 0,
  dismissedHere: false,
  ...overrides,
});

describe('reportWeight', () => {
  it.each<[string, Partial<ReporterStanding>, 0 | 1 | 2, string]>([
    ['a throwaway account, minutes old', { accountDays: 0 }, 0, 'account 0 days old'],
    ['an account 29 days old with skills and an upheld report', { accountDays: 29, skills: 3, upheld: 1 }, 0, 'account 29 days old'],
    ['an old account that never published nor had a report upheld', {}, 0, 'no skill published and no report upheld yet'],
    ['an old account that publishes', { skills: 2 }, 1, 'author of 2 skills'],
    ['an author whose skills have 100 installs', { skills: 1, installs: 100 }, 2, 'author of skills with 100 installs'],
    ['an author whose skills have 99', { skills: 1, installs: 99 }, 1, 'author of 1 skill'],
    ['an account with a report upheld', { upheld: 1 }, 2, '1 report upheld'],
    ['as many dismissed as upheld', { upheld: 2, dismissed: 2 }, 2, '2 reports upheld'],
    ['more dismissed than upheld, whatever else', { upheld: 1, dismissed: 2, skills: 9, installs: 10_000 }, 0, '2 reports dismissed, 1 upheld'],
    [
      'a report of a skill an admin released from their earlier report',
      { upheld: 5, dismissed: 1, dismissedHere: true },
      0,
      'an admin dismissed their earlier report of this skill',
    ],
  ])('%s weighs %#', (_, overrides, weight, basis) => {
    expect(reportWeight(standing(overrides))).toEqual({ weight, basis });
  });

  it('never weighs a report by an account younger than 30 days, or by one dismissed more often than upheld', () => {
    const anyStanding = fc.record({
      accountDays: fc.nat(5000),
      skills: fc.nat(1000),
      installs: fc.nat(1_000_000),
      upheld: fc.nat(50),
      dismissed: fc.nat(50),
      dismissedHere: fc.boolean(),
    });
    fc.assert(
      fc.property(anyStanding, (s) => {
        const { weight } = reportWeight(s);
        if (s.accountDays < 30 || s.dismissed > s.upheld || s.dismissedHere) expect(weight).toBe(0);
        if (weight === 2) expect(s.upheld > 0 || s.installs >= 100).toBe(true);
      }),
    );
  });
});

describe('hidesSkill', () => {
  const report = (weight: number, reason: (typeof REPORT_REASONS)[number] = 'malware') => ({ weight, reason });

  it('hides on malware or impersonation reports weighing 3 from two accounts or more', () => {
    expect(hidesSkill([report(2), report(1)])).toBe(true);
    expect(hidesSkill([report(1), report(1, 'impersonation'), report(1)])).toBe(true);
    expect(hidesSkill([report(2), report(2, 'impersonation')])).toBe(true);
  });

  it('does not hide on one account alone, however trusted, nor on weight under 3', () => {
    expect(hidesSkill([report(2)])).toBe(false);
    expect(hidesSkill([report(1), report(1)])).toBe(false);
    expect(hidesSkill([report(2), report(0), report(0), report(0)])).toBe(false);
  });

  it('never hides on reports that weigh nothing, however many: 114 from throwaway accounts are a queue, not a verdict', () => {
    expect(hidesSkill(Array.from({ length: 114 }, () => report(0)))).toBe(false);
  });

  it('leaves spam and other reports to the admins', () => {
    expect(hidesSkill([report(2, 'spam'), report(2, 'other'), report(2, 'spam')])).toBe(false);
    expect(hidesSkill([report(2, 'spam'), report(1), report(1, 'other')])).toBe(false);
  });
});
