import * as z from 'zod/mini';
import { AUDIT_ACTIONS } from './audit-actions.ts';
import { limits } from './limits.ts';
import { ROLES } from './policy.ts';
import { loginSchema, ownSkillSchema, visibleText } from './schemas.ts';
import { lazySchema } from './lazy-schema.ts';

/**
 * Organisations (docs/api.md §7.12): what their endpoints read and answer, and the actions their
 * audit log records. Who may do what is the policy's (policy.ts); this file is the shapes.
 */

const roleSchema = lazySchema(() =>
  z
    .enum(ROLES)
    .check(z.describe('owner: members, keys, prices, visibility, transfers; maintainer: publish, version, yank, deprecate; member: install private skills')),
);

export const orgBodySchema = lazySchema(() =>
  z.strictObject({
    login: loginSchema.check(z.describe('shares the namespace of user logins, compared ignoring case')),
    name: visibleText(100),
  }),
);

export const invitationBodySchema = lazySchema(() => z.strictObject({ login: loginSchema, role: roleSchema }));
export const roleBodySchema = lazySchema(() => z.strictObject({ role: roleSchema }));

export const auditQuerySchema = lazySchema(() =>
  z.object({
    cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(300))).check(z.describe('nextCursor of the page before; absent for the newest page')),
  }),
);

/** An organisation as anyone may see it, with its skills as the caller may see them. */
export const orgSchema = lazySchema(() =>
  z.object({
    login: z.string(),
    name: z.string(),
    createdAt: z.string(),
    role: z.optional(roleSchema).check(z.describe("the caller's role, when the caller is a member")),
    skills: z.array(ownSkillSchema).check(z.describe('newest first: its public skills, and to its members its private ones too')),
  }),
);

export const memberSchema = lazySchema(() => z.object({ login: z.string(), role: roleSchema, since: z.string() }));
export const memberListSchema = lazySchema(() => z.object({ members: z.array(memberSchema).check(z.describe('by login, ignoring case')) }));

export const invitationSchema = lazySchema(() =>
  z.object({
    org: z.string(),
    login: z.string().check(z.describe('who is invited')),
    role: roleSchema,
    invitedBy: z.string(),
    createdAt: z.string(),
    expiresAt: z.string().check(z.describe(`${limits.invitationDays} days after it was made`)),
  }),
);
export const invitationListSchema = lazySchema(() => z.object({ invitations: z.array(invitationSchema).check(z.describe('newest first')) }));

export const myOrgsSchema = lazySchema(() =>
  z.object({
    orgs: z.array(z.object({ login: z.string(), name: z.string(), role: roleSchema })).check(z.describe('by login, ignoring case')),
  }),
);

export const auditEntrySchema = lazySchema(() =>
  z.object({
    at: z.string(),
    actor: z.string().check(z.describe('the login of the user who did it')),
    action: z.enum(AUDIT_ACTIONS),
    target: z.string().check(z.describe('a login (invitations, members), a skill slug (skills, versions: <slug>@<version>), or a key id')),
    details: z.optional(z.record(z.string(), z.unknown())).check(z.describe('what else there is to know: roles, versions, reasons; never secrets or content')),
  }),
);

export const auditPageSchema = lazySchema(() =>
  z.object({
    entries: z.array(auditEntrySchema).check(z.describe(`newest first, at most ${limits.auditPage}`)),
    nextCursor: z.optional(z.string()).check(z.describe('present when older entries remain: pass it back as ?cursor=')),
  }),
);
