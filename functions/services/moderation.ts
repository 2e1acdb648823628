import { DomainError, notFound } from '#core/errors';
import { type AdminReport, hidesSkill, hidingSignal, type Report, type ReportBody, type ReporterStanding, reportWeight } from '#core/moderation';
import type { User } from '#core/schemas';
import type { Deps } from '../platform/composition.ts';
import { rateWindow } from './rate-windows.ts';
import { quarantineSkill, releaseSkill } from '../store/moderation.ts';
import { returnSlot, takeSlot } from '../store/rate-limit.ts';
import { distinctInstallTotals } from '../store/downloads.ts';
import { decideReports, getReport, getReporterRecord, listOpenReports, listReports, putReport, type ReportItem } from '../store/reports.ts';
import { getSkill, listSkillsByAuthor, type SkillItem } from '../store/skills.ts';
import { getUser } from '../store/users.ts';
import { allow, type Principal, skillFor } from './authorization.ts';

/**
 * Reports and quarantine (docs/api.md §7.10). Any signed-in user but its owning side may report a
 * skill once while their report is open, a few times an hour. Each report is weighed by its
 * reporter's standing when filed (core/moderation.ts): reports of new or unproven accounts wait
 * for the admins, and only a strong signal from accounts with standing hides a skill before an
 * admin looks. Admins (`SKILLPRESS_ADMINS`) work through the open reports: quarantining upholds
 * them, releasing dismisses them, and both are counted on the reporters' records. A quarantine or
 * release names the skill to the rebuild, which takes it out of (or puts it back into) the
 * catalog, the discovery index and its registry documents.
 */
type Ports = Pick<Deps, 'db' | 'clock' | 'changed' | 'config' | 'log'>;

/** A reporter's skills whose installs are weighed: the most recent, in one batched read. */
const SKILLS_WEIGHED = 100;
const DAY_MS = 86_400_000;

export async function reportSkill(deps: Ports, principal: Principal, skillId: string, body: ReportBody): Promise<Report> {
  const user = principal.user;
  const [{ skill }, earlier] = await Promise.all([skillFor(deps, principal, skillId, 'skill.report'), getReport(deps.db, skillId, user.id)]);
  if (earlier?.status === 'open') throw alreadyReported();
  const window = rateWindow(deps.config, 'report');
  const slot = await takeSlot(deps.db, user.id, deps.clock(), window);
  const dismissedHere = earlier?.status === 'dismissed' || earlier?.dismissedHere === true;
  const { weight, basis } = reportWeight(await standingOf(deps, user, dismissedHere));
  const report: ReportItem = {
    skillId,
    userId: user.id,
    login: user.login,
    reason: body.reason,
    ...(body.details ? { details: body.details } : {}),
    createdAt: deps.clock().toISOString(),
    status: 'open',
    weight,
    basis,
    ...(dismissedHere ? { dismissedHere } : {}),
  };
  try {
    await putReport(deps.db, report);
  } catch (error) {
    // Reported meanwhile by a concurrent request: a refused report spends no slot.
    await returnSlot(deps.db, user.id, slot.stamp, window);
    throw error;
  }
  if (!skill.quarantine && weight > 0) await quarantineIfReported(deps, skill);
  return forAuthor(report);
}

const alreadyReported = () => new DomainError('already_reported', 'You have already reported this skill; an admin will look at it');

/**
 * What is known of `user` as a reporter: the age of the account, the skills it publishes and
 * their installs (by distinct clients, as the imitation check counts them, so they cannot be
 * inflated by fetching), and what admins made of its reports.
 */
async function standingOf(deps: Ports, user: User, dismissedHere: boolean): Promise<ReporterStanding> {
  const [account, record, skills] = await Promise.all([getUser(deps.db, user.id), getReporterRecord(deps.db, user.id), listSkillsByAuthor(deps.db, user.id)]);
  const weighed = skills.slice(-SKILLS_WEIGHED).map((s) => s.id);
  const installs = weighed.length === 0 ? 0 : [...(await distinctInstallTotals(deps.db, weighed)).values()].reduce((sum, n) => sum + n, 0);
  const since = account ? Date.parse(account.createdAt) : deps.clock().getTime();
  return {
    accountDays: Math.max(0, Math.floor((deps.clock().getTime() - since) / DAY_MS)),
    skills: skills.length,
    installs,
    upheld: record.upheld,
    dismissed: record.dismissed,
    dismissedHere,
  };
}

/**
 * Quarantines `skill` when its open reports are a strong enough signal (core/moderation.ts
 * `hidesSkill`). Read after this request's report is stored, so of concurrent reports that tip
 * the balance at least one sees it; the conditional write lets only one quarantine.
 */
async function quarantineIfReported(deps: Ports, skill: SkillItem): Promise<void> {
  const open = (await listReports(deps.db, skill.id)).filter((r) => r.status === 'open');
  if (!hidesSkill(open)) return;
  const { reporters, weight, reasons } = hidingSignal(open);
  const quarantined = await quarantineSkill(deps.db, skill.id, {
    reason: `reported by ${reporters} users with standing (${reasons.join(', ')}; weight ${weight}); hidden until an admin reviews it`,
    since: deps.clock().toISOString(),
    by: 'reports',
  });
  if (!quarantined) return;
  deps.log.info('skill quarantined by reports', { skillId: skill.id, slug: skill.slug, reporters, weight });
  deps.changed([skill.id]);
}

/** A skill's reports, newest first, for its author or an admin; reporters are not named. */
export async function reportsOf(deps: Ports, principal: Principal, skillId: string): Promise<Report[]> {
  await skillFor(deps, principal, skillId, 'skill.read_reports');
  const reports = await listReports(deps.db, skillId);
  return reports.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0)).map(forAuthor);
}

/** Every open report with its skill as it stands, newest first: the admins' queue. */
export async function openReports(deps: Ports, admin: Principal): Promise<AdminReport[]> {
  await assertAdmin(deps, admin);
  const reports = await listOpenReports(deps.db);
  const ids = [...new Set(reports.map((r) => r.skillId))];
  const skills = new Map((await Promise.all(ids.map((id) => getSkill(deps.db, id)))).filter((s) => s !== undefined).map((s) => [s.id, s]));
  return reports.flatMap((report) => {
    const skill = skills.get(report.skillId);
    if (!skill) return [];
    return [
      {
        ...forAuthor(report),
        reporter: report.login,
        weight: report.weight,
        basis: report.basis,
        slug: skill.slug,
        name: skill.name,
        quarantined: skill.quarantine !== undefined,
      },
    ];
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
export async function quarantine(deps: Ports, principal: Principal, skillId: string, reason: string): Promise<QuarantineState> {
  await assertAdmin(deps, principal);
  const admin = principal.user;
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
export async function release(deps: Ports, principal: Principal, skillId: string): Promise<void> {
  await assertAdmin(deps, principal);
  const admin = principal.user;
  const skill = await getSkill(deps.db, skillId);
  if (!skill) throw notFound(`No skill with id ${skillId}`);
  await decideReports(deps.db, skillId, 'dismissed', deps.clock());
  if (await releaseSkill(deps.db, skillId)) {
    deps.log.info('skill released by an admin', { skillId, slug: skill.slug, admin: admin.login });
    deps.changed([skillId]);
  }
}

async function assertAdmin(deps: Ports, principal: Principal): Promise<void> {
  await allow(deps, principal, 'registry.moderate', { kind: 'registry' });
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
