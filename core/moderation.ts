import * as z from 'zod';
import { textRule, visibleText } from './schemas.ts';
import { multiLineTextProblem } from './text.ts';

/**
 * Reports and quarantine (docs/api.md §7.10): what users may say about a skill, what admins see,
 * and the rules that decide when a skill leaves every listing.
 */

/** Distinct users with an open report that quarantine a skill without waiting for an admin. */
export const REPORTERS_TO_QUARANTINE = 3;

export const REPORT_REASONS = ['malware', 'impersonation', 'spam', 'other'] as const;

/**
 * A report's state: `open` until an admin decides; `upheld` when an admin quarantines the skill,
 * `dismissed` when an admin releases it. Only open reports count towards a quarantine.
 */
export const REPORT_STATES = ['open', 'upheld', 'dismissed'] as const;
export type ReportState = (typeof REPORT_STATES)[number];

export const reportBodySchema = z.strictObject({
  reason: z.enum(REPORT_REASONS),
  details: z.string().max(2000).superRefine(textRule(multiLineTextProblem)).optional().describe('what the reporter saw, for the admins'),
});
export type ReportBody = z.output<typeof reportBodySchema>;

export const quarantineBodySchema = z.strictObject({ reason: visibleText(500) });

/** A report as its skill's author sees it: what was said and when, not who said it. */
export const reportSchema = z.object({
  skillId: z.string(),
  reason: z.enum(REPORT_REASONS),
  details: z.string().optional(),
  createdAt: z.string(),
  status: z.enum(REPORT_STATES),
});
export type Report = z.output<typeof reportSchema>;
export const reportListSchema = z.object({ reports: z.array(reportSchema) });

/** A report as admins see it: who reported, and the skill as it stands. */
export const adminReportSchema = reportSchema.extend({
  reporter: z.string().describe("the reporter's login"),
  slug: z.string(),
  name: z.string(),
  quarantined: z.boolean(),
});
export type AdminReport = z.output<typeof adminReportSchema>;
export const adminReportListSchema = z.object({ reports: z.array(adminReportSchema).describe('open reports, newest first') });

export const quarantineSchema = z.object({
  skillId: z.string(),
  slug: z.string(),
  status: z.literal('quarantined'),
  reason: z.string(),
  since: z.string(),
});

/** Whether `login` is one of the admins named in the configuration; logins compare ignoring case. */
export function isAdmin(login: string, admins: readonly string[]): boolean {
  const wanted = login.toLowerCase();
  return admins.some((admin) => admin.toLowerCase() === wanted);
}
