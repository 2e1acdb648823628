/**
 * What an organisation's audit log records (docs/api.md §7.12), one word per kind of change. Apart
 * from the schemas (organisations.ts), so the Lambdas that write entries carry no zod for them.
 */
export const AUDIT_ACTIONS = [
  'invitation.created',
  'invitation.accepted',
  'invitation.declined',
  'invitation.revoked',
  'member.role_changed',
  'member.removed',
  'skill.published',
  'version.published',
  'version.yanked',
  'version.unyanked',
  'skill.deprecated',
  'skill.visibility_changed',
  'skill.transferred',
  'key.created',
  'key.revoked',
  'publisher.added',
  'publisher.removed',
  'publisher.confirmed',
  'skill.price_changed',
  'grant.created',
  'grant.revoked',
  'download_token.created',
  'download_token.revoked',
  'org.deleted',
  'org.renamed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
