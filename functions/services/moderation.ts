import { forbidden, notFound } from '#core/errors';
import { type AdminReport, isAdmin, REPORTERS_TO_QUARANTINE, type Report, type ReportBody } from '#core/moderation';
import type { User } from '#core/schemas';
import type { Deps } from '../platform/composition.ts';
import { rateWindow } from './rate-windows.ts';
import { quarantineSkill, releaseSkill } from '../store/moderation.ts';
import { returnSlot, takeSlot } from '../store/rate-limit.ts';
import { decideReports, listOpenReports, listReports, putReport, type ReportItem } from '../store/reports.ts';
import { getSkill, type SkillItem } from '../store/skills.ts';

/**
 * Reports and quarantine (docs/api.md §7.10). Any signed-in user but the author may report a
 * skill once while their report is open; three distinct open reporters quarantine it. Admins
 * (`SKILLPRESS_ADMINS`) work through the open reports: quarantining upholds them, releasing
 * dismisses them. A quarantine or release names the skill to the rebuild, which takes it out of
 * (or puts it back into) the catalog, the discovery index and its registry documents.
 */
type Ports = Pick<Deps, 'db' | 'clock' | 'changed' | 'config' | 'log'>;

export async function reportSkill(deps: Ports, user: User, skillId: string, body: ReportBody): Promise<Report> {
  const skill = await getSkill(deps.db, skillId);
  if (!skill) throw notFound(`No skill with id ${skillId}`);
  if (skill.authorId === user.id) throw forbidden('You cannot report your own skill');
  const window = rateWindow(deps.config, 'report');
  const slot = await takeSlot(deps.db, user.id, deps.clock(), window);
  const report: ReportItem = {
    skillId,
    userId: user.id,
    login: user.login,
    reason: body.reason,
    ...(body.details ? { details: body.details } : {}),
    createdAt: deps.clock().toISOString(),
    status: 'open',
  };
  try {
    await putReport(deps.db, report);
  } catch (error) {
    // Already reported: a refused report spends no slot.
    await returnSlot(deps.db, user.id, slot.stamp, window);
    throw error;
  }
  if (!skill.quarantine) await quarantineIfReported(deps, skill);
  return forAuthor(report);
}

/**
 * Quarantines `skill` once enough distinct users have an open report on it. Read after this
 * request's report is stored, so of concurrent third reports at least one sees three; the
 * conditional write lets only one quarantine.
 */
async function quarantineIfReported(deps: Ports, skill: SkillItem): Promise<void> {
  const open = (await listReports(deps.db, skill.id)).filter((r) => r.status === 'open');
  if (open.length < REPORTERS_TO_QUARANTINE) return;
  const reasons = [...new Set(open.map((r) => r.reason))].join(', ');
  const quarantined = await quarantineSkill(deps.db, skill.id, {
    reason: `${open.length} users reported it (${reasons})`,
    since: deps.clock().toISOString(),
    by: 'reports',
  });
  if (!quarantined) return;
  deps.log.info('skill quarantined by reports', { skillId: skill.id, slug: skill.slug, reporters: open.length });
  deps.changed([skill.id]);
}

/** A skill's reports, newest first, for its author or an admin; reporters are not named. */
export async function reportsOf(deps: Ports, user: User, skillId: string): Promise<Report[]> {
  const skill = await getSkill(deps.db, skillId);
  if (!skill) throw notFound(`No skill with id ${skillId}`);
  if (skill.authorId !== user.id && !isAdmin(user.login, deps.config.admins)) throw forbidden('Only the author of this skill or an admin may read its reports');
  const reports = await listReports(deps.db, skillId);
  return reports.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0)).map(forAuthor);
}

/** Every open report with its skill as it stands, newest first: the admins' queue. */
export async function openReports(deps: Ports, admin: User): Promise<AdminReport[]> {
  assertAdmin(deps, admin);
  const reports = await listOpenReports(deps.db);
  const ids = [...new Set(reports.map((r) => r.skillId))];
  const skills = new Map((await Promise.all(ids.map((id) => getSkill(deps.db, id)))).filter((s) => s !== undefined).map((s) => [s.id, s]));
  return reports.flatMap((report) => {
    const skill = skills.get(report.skillId);
    if (!skill) return [];
    return [{ ...forAuthor(report), reporter: report.login, slug: skill.slug, name: skill.name, quarantined: skill.quarantine !== undefined }];
  });
}

export interface QuarantineState {
  skillId: string;
  slug: string;
  status: 'quarantined';
  reason: string;
  since: string;
}

/**
 * An admin quarantines a skill and upholds its open reports. A skill already quarantined keeps
 * its quarantine (and its reason); the answer says what stands.
 */
export async function quarantine(deps: Ports, admin: User, skillId: string, reason: string): Promise<QuarantineState> {
  assertAdmin(deps, admin);
  const skill = await getSkill(deps.db, skillId);
  if (!skill) throw notFound(`No skill with id ${skillId}`);
  const now = deps.clock();
  let standing = skill.quarantine;
  if (!standing) {
    const quarantined = await quarantineSkill(deps.db, skillId, { reason, since: now.toISOString(), by: admin.login });
    // Undefined: reports quarantined it in between; theirs is the quarantine that stands.
    standing = quarantined?.quarantine ?? (await getSkill(deps.db, skillId))?.quarantine;
    if (!standing) throw notFound(`No skill with id ${skillId}`);
    deps.log.info('skill quarantined by an admin', { skillId, slug: skill.slug, admin: admin.login });
    deps.changed([skillId]);
  }
  await decideReports(deps.db, skillId, 'upheld', now);
  return { skillId, slug: skill.slug, status: 'quarantined', reason: standing.reason, since: standing.since };
}

/**
 * An admin clears a skill: lifts its quarantine if it has one, and dismisses its open reports
 * (so the same reporters do not quarantine it again at once; new reports count afresh).
 */
export async function release(deps: Ports, admin: User, skillId: string): Promise<void> {
  assertAdmin(deps, admin);
  const skill = await getSkill(deps.db, skillId);
  if (!skill) throw notFound(`No skill with id ${skillId}`);
  await decideReports(deps.db, skillId, 'dismissed', deps.clock());
  if (await releaseSkill(deps.db, skillId)) {
    deps.log.info('skill released by an admin', { skillId, slug: skill.slug, admin: admin.login });
    deps.changed([skillId]);
  }
}

function assertAdmin(deps: Pick<Deps, 'config'>, user: User): void {
  if (!isAdmin(user.login, deps.config.admins)) throw forbidden('Only admins may do this');
}

function forAuthor(report: ReportItem): Report {
  return {
    skillId: report.skillId,
    reason: report.reason,
    ...(report.details === undefined ? {} : { details: report.details }),
    createdAt: report.createdAt,
    status: report.status,
  };
}
