import * as z from 'zod/mini';
import type { Finding, ScanResult } from './scan/finding.ts';
import { scanResultSchema } from './scan/scan-result-schema.ts';
import { textRule } from './schema-fields.ts';
import { fileEntrySchema, publishBodySchema, versionBodySchema } from './schemas.ts';
import { multiLineTextProblem } from './text.ts';
import { lazySchema } from './lazy-schema.ts';

/**
 * Appeals (docs/api.md §7.15): the author of a version the scan refused (or would flag) sends it
 * again with a message; it waits, unpublished and private, until an admin approves it (it is then
 * published exactly as sent, its scan carrying `reviewed`) or declines it with a reason.
 */

export const APPEAL_STATES = ['pending', 'approved', 'declined'] as const;
export type AppealState = (typeof APPEAL_STATES)[number];

/** What an appeal asks to publish: a new skill (the body of `POST /api/publish`) or a new version. */
export const APPEAL_KINDS = ['skill', 'version'] as const;

/** How long an account is new: a flagged version from it is held for review rather than published. */
export const NEW_PUBLISHER_DAYS = 7;

/**
 * Whether a version the scan flagged is held for review (the appeal queue) instead of published
 * flagged: its author's account is younger than {@link NEW_PUBLISHER_DAYS}, or has no clean
 * version published yet. A clean version is never held, and a malicious one is refused anyway.
 */
export function heldForReview(verdict: ScanResult['verdict'], author: { createdAt: string | undefined; hasCleanVersion: boolean }, now: Date): boolean {
  if (verdict !== 'suspicious') return false;
  const created = author.createdAt === undefined ? now.getTime() : Date.parse(author.createdAt);
  return now.getTime() - created < NEW_PUBLISHER_DAYS * 86_400_000 || !author.hasCleanVersion;
}

/** An author's pending appeals at most: the admins' queue is not a place to store versions in. */
export const PENDING_APPEALS_PER_AUTHOR = 5;

const messageSchema = lazySchema(() =>
  z.string().check(
    z.minLength(1),
    z.maxLength(2000),
    z.refine((s) => s.trim().length > 0, 'must not be blank'),
    z.superRefine(textRule(multiLineTextProblem)),
  ),
);

/**
 * `POST /api/appeals`: `{message, publish}` for a new skill, `{message, skillId, version}` for a
 * new version of one, with the bodies their publish endpoints take.
 */
export const appealBodySchema = lazySchema(() =>
  z
    .strictObject({
      message: messageSchema.check(z.describe('why the findings are mistaken, for the admins who review it')),
      publish: z.optional(publishBodySchema).check(z.describe('a new skill: the body of POST /api/publish')),
      skillId: z.optional(z.string().check(z.minLength(1), z.maxLength(128))).check(z.describe('a new version: the skill it is a version of')),
      version: z.optional(versionBodySchema).check(z.describe('a new version: the body of POST /api/skills/{id}/versions')),
    })
    .check(
      z.superRefine((body, ctx) => {
        const asSkill = body.publish !== undefined;
        const asVersion = body.skillId !== undefined || body.version !== undefined;
        if (asSkill === asVersion) {
          ctx.addIssue({ code: 'custom', path: ['publish'], message: 'send either publish (a new skill) or skillId and version (a new version)' });
          return;
        }
        if (asVersion && body.skillId === undefined) ctx.addIssue({ code: 'custom', path: ['skillId'], message: 'required with version' });
        if (asVersion && body.version === undefined) ctx.addIssue({ code: 'custom', path: ['version'], message: 'required with skillId' });
      }),
    ),
);
export type AppealBody = z.output<typeof appealBodySchema>;

/** `POST /api/admin/appeals/<id>/decline`: why, for the author. */
export const declineBodySchema = lazySchema(() => z.strictObject({ reason: messageSchema.check(z.describe('why, for the author')) }));

/** An appeal as its author sees it. */
export const appealSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    status: z.enum(APPEAL_STATES),
    kind: z.enum(APPEAL_KINDS),
    slug: z.string().check(z.describe('the skill it publishes (for a new skill, the slug it asks for)')),
    skillId: z.optional(z.string()).check(z.describe('the skill: a version appeal from the start, a new skill once approved')),
    version: z.string(),
    message: z.string(),
    createdAt: z.string(),
    /** The scan the version got when the appeal was filed: what the admins review. */
    scan: scanResultSchema,
    decidedAt: z.optional(z.string()),
    reason: z.optional(z.string()).check(z.describe('a declined appeal: why')),
  }),
);
export type Appeal = z.output<typeof appealSchema>;
export const appealListSchema = lazySchema(() => z.object({ appeals: z.array(appealSchema).check(z.describe('newest first')) }));

/** What filing an appeal answers: its id and state. */
export const appealFiledSchema = lazySchema(() => z.object({ id: z.string(), status: z.literal('pending') }));

/** An appeal as admins see it: who filed it and what it would publish. */
export const adminAppealSchema = lazySchema(() =>
  z.extend(appealSchema, {
    author: z.string().check(z.describe("the author's login")),
    owner: z.optional(z.string()).check(z.describe('a new skill published into an organisation: its login')),
    paid: z.boolean(),
    files: z.array(fileEntrySchema),
  }),
);
export type AdminAppeal = z.output<typeof adminAppealSchema>;
export const adminAppealListSchema = lazySchema(() => z.object({ appeals: z.array(adminAppealSchema).check(z.describe('pending appeals, oldest first')) }));

/** One appeal with its files' contents, for the admin reviewing it: text as UTF-8, anything else as base64. */
export const adminAppealDetailSchema = lazySchema(() =>
  z.extend(adminAppealSchema, {
    files: z.array(z.extend(fileEntrySchema, { content: z.string(), encoding: z.enum(['utf8', 'base64']) })),
  }),
);
export type AdminAppealDetail = z.output<typeof adminAppealDetailSchema>;

/**
 * Whether a review still stands for a version scanned again (`npm run rescan`): every finding of
 * the new scan is one the admins approved (same rule, file and line). New findings need a new look,
 * so the version is then judged as any other.
 */
export function reviewStands(reviewed: ScanResult, fresh: ScanResult): boolean {
  if (reviewed.reviewed === undefined) return false;
  const key = (f: Finding) => `${f.rule}\u0000${f.file}\u0000${f.line}`;
  const approved = new Set(reviewed.findings.map(key));
  return fresh.findings.every((f) => approved.has(key(f)));
}
