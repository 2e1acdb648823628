import * as z from 'zod/mini';
import { textRule, visibleText } from './schema-fields.ts';
import { multiLineTextProblem } from './text.ts';
import { lazySchema } from './lazy-schema.ts';

/**
 * Reports and quarantine (docs/api.md §7.10): what users may say about a skill, what admins see,
 * and the rules that decide when a skill leaves every listing.
 */

export const REPORT_REASONS = ['malware', 'impersonation', 'spam', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

/**
 * Who is reporting (docs/api.md §7.10), as known when the report is filed: reports from new or
 * unproven accounts go to the admins' queue and never hide a skill on their own, however many.
 */
export interface ReporterStanding {
  /** Whole days since the account's first sign-in. */
  accountDays: number;
  /** Skills the account has published. */
  skills: number;
  /** Installs of those skills, together. */
  installs: number;
  /** The account's reports that admins upheld (quarantined the skill) and dismissed (released it). */
  upheld: number;
  dismissed: number;
  /** An earlier report of this same skill by the account was dismissed. */
  dismissedHere: boolean;
}

/** How much a report counts towards hiding a skill before an admin looks, and why, in words for the admins. */
export interface ReportWeight {
  weight: 0 | 1 | 2;
  basis: string;
}

/** An account this young carries no weight: a throwaway account is minutes old. */
export const ESTABLISHED_ACCOUNT_DAYS = 30;
/** Installs of an account's skills that make it a known author, as for the imitation check. */
export const KNOWN_AUTHOR_INSTALLS = 100;
/** Reasons that may hide a skill before an admin looks: the ones that hurt whoever installs it. */
export const HIDING_REASONS: readonly ReportReason[] = ['malware', 'impersonation'];
/** Open reports with hiding reasons must weigh this much together, from at least {@link HIDING_REPORTERS} accounts. */
export const HIDING_WEIGHT = 3;
export const HIDING_REPORTERS = 2;

/**
 * The weight of one report. Nothing counts from an account younger than
 * {@link ESTABLISHED_ACCOUNT_DAYS} days, from one whose reports admins dismissed more often than
 * they upheld, or from one re-reporting a skill an admin released from its earlier report (so the
 * same reporters cannot quarantine a released skill again). An older account counts 2 once it
 * has a report upheld or its skills have {@link KNOWN_AUTHOR_INSTALLS} installs, 1 when it
 * publishes skills, and 0 otherwise.
 */
export function reportWeight(standing: ReporterStanding): ReportWeight {
  if (standing.dismissedHere) return { weight: 0, basis: 'an admin dismissed their earlier report of this skill' };
  if (standing.dismissed > standing.upheld) return { weight: 0, basis: `${count(standing.dismissed, 'report')} dismissed, ${standing.upheld} upheld` };
  if (standing.accountDays < ESTABLISHED_ACCOUNT_DAYS) return { weight: 0, basis: `account ${count(standing.accountDays, 'day')} old` };
  if (standing.upheld > 0) return { weight: 2, basis: `${count(standing.upheld, 'report')} upheld` };
  if (standing.installs >= KNOWN_AUTHOR_INSTALLS) return { weight: 2, basis: `author of skills with ${standing.installs} installs` };
  if (standing.skills > 0) return { weight: 1, basis: `author of ${count(standing.skills, 'skill')}` };
  return { weight: 0, basis: 'no skill published and no report upheld yet' };
}

/** What a skill's open reports say together: reports of malware or impersonation that carry weight. */
export interface HidingSignal {
  reporters: number;
  weight: number;
  reasons: ReportReason[];
}

/** The part of a skill's open reports that counts towards hiding it (one report per account is open at a time). */
export function hidingSignal(open: readonly { reason: ReportReason; weight: number }[]): HidingSignal {
  const counting = open.filter((report) => report.weight > 0 && HIDING_REASONS.includes(report.reason));
  return {
    reporters: counting.length,
    weight: counting.reduce((sum, report) => sum + report.weight, 0),
    reasons: REPORT_REASONS.filter((reason) => counting.some((report) => report.reason === reason)),
  };
}

/**
 * Whether a skill's open reports are a strong enough signal to hide it until an admin decides:
 * reports of malware or impersonation weighing {@link HIDING_WEIGHT} together, from at least
 * {@link HIDING_REPORTERS} accounts that carry weight. Anything less waits in the admins' queue.
 */
export function hidesSkill(open: readonly { reason: ReportReason; weight: number }[]): boolean {
  const signal = hidingSignal(open);
  return signal.reporters >= HIDING_REPORTERS && signal.weight >= HIDING_WEIGHT;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * A report's state: `open` until an admin decides; `upheld` when an admin quarantines the skill,
 * `dismissed` when an admin releases it. Only open reports count towards a quarantine.
 */
export const REPORT_STATES = ['open', 'upheld', 'dismissed'] as const;
export type ReportState = (typeof REPORT_STATES)[number];

export const reportBodySchema = lazySchema(() =>
  z.strictObject({
    reason: z.enum(REPORT_REASONS),
    details: z
      .optional(z.string().check(z.maxLength(2000), z.superRefine(textRule(multiLineTextProblem))))
      .check(z.describe('what the reporter saw, for the admins')),
  }),
);
export type ReportBody = z.output<typeof reportBodySchema>;

export const quarantineBodySchema = lazySchema(() => z.strictObject({ reason: visibleText(500) }));

/** A report as its skill's author sees it: what was said and when, not who said it. */
export const reportSchema = lazySchema(() =>
  z.object({
    skillId: z.string(),
    reason: z.enum(REPORT_REASONS),
    details: z.optional(z.string()),
    createdAt: z.string(),
    status: z.enum(REPORT_STATES),
  }),
);
export type Report = z.output<typeof reportSchema>;
export const reportListSchema = lazySchema(() => z.object({ reports: z.array(reportSchema) }));

/** A report as admins see it: who reported and what their report weighs, and the skill as it stands. */
export const adminReportSchema = lazySchema(() =>
  z.extend(reportSchema, {
    reporter: z.string().check(z.describe("the reporter's login")),
    weight: z
      .number()
      .check(z.describe("how much the report counts towards hiding the skill before review (0, 1 or 2), from the reporter's standing when filed")),
    basis: z.string().check(z.describe('why it weighs that, in words')),
    slug: z.string(),
    name: z.string(),
    quarantined: z.boolean(),
  }),
);
export type AdminReport = z.output<typeof adminReportSchema>;
export const adminReportListSchema = lazySchema(() => z.object({ reports: z.array(adminReportSchema).check(z.describe('open reports, newest first')) }));

export const quarantineSchema = lazySchema(() =>
  z.object({
    skillId: z.string(),
    slug: z.string(),
    status: z.literal('quarantined'),
    reason: z.string(),
    since: z.string(),
  }),
);

/** Whether `login` is one of the admins named in the configuration; logins compare ignoring case. */
export function isAdmin(login: string, admins: readonly string[]): boolean {
  const wanted = login.toLowerCase();
  return admins.some((admin) => admin.toLowerCase() === wanted);
}
