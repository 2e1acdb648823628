import { adminReportListSchema, quarantineBodySchema, quarantineSchema, reportBodySchema, reportListSchema, reportSchema } from '#core/moderation';
import { operations } from '../operation.ts';

/** Reports of skills, and the admins' quarantine (docs/api.md §7.10). */
export const moderationOperations = operations(
  {
    name: 'Moderation',
    description: 'Users report skills; three reporters or an admin quarantine one, which takes it out of every listing and refuses its delivery.',
  },
  {
    reportSkill: {
      method: 'post',
      path: '/api/skills/{id}/reports',
      summary: 'Report a skill (any signed-in user but its author)',
      description: 'One open report per user and skill. When three distinct users have an open report, the skill is quarantined.',
      auth: 'session',
      body: reportBodySchema,
      success: { status: 201, description: 'Reported', schema: reportSchema },
      errors: ['not_found', 'forbidden', 'already_reported', 'rate_limited'],
    },
    skillReports: {
      method: 'get',
      path: '/api/skills/{id}/reports',
      summary: "A skill's reports, newest first (its author or an admin); reporters are not named",
      auth: 'session',
      success: { status: 200, description: 'OK', schema: reportListSchema },
      errors: ['not_found', 'forbidden'],
    },
    openReports: {
      method: 'get',
      path: '/api/admin/reports',
      summary: 'Every open report, newest first (admins)',
      auth: 'session',
      success: { status: 200, description: 'OK', schema: adminReportListSchema },
      errors: ['forbidden'],
    },
    quarantineSkill: {
      method: 'post',
      path: '/api/admin/skills/{id}/quarantine',
      summary: 'Quarantine a skill and uphold its open reports (admins)',
      description: 'A skill already quarantined stays as it is; the answer gives the quarantine that stands.',
      auth: 'session',
      body: quarantineBodySchema,
      success: { status: 200, description: 'Quarantined', schema: quarantineSchema },
      errors: ['forbidden', 'not_found'],
    },
    releaseSkill: {
      method: 'delete',
      path: '/api/admin/skills/{id}/quarantine',
      summary: 'Release a skill: lift its quarantine, if any, and dismiss its open reports (admins)',
      auth: 'session',
      success: { status: 204, description: 'Released' },
      errors: ['forbidden', 'not_found'],
    },
  },
);
