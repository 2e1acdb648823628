import type { ClawhubModeration, ClawhubSkill, ClawhubVersion } from './clawhub-schemas.ts';
import { type ScanResult, SEVERITIES, type Severity, severityRank } from './scan/finding.ts';
import { type Judged, standingVerdict } from './scan/standing-verdict.ts';
import type { User } from './schemas.ts';
import { defaultOfSkill } from './version-behaviour.ts';

/**
 * Skillpress's skills in the shapes of ClawHub's registry API (docs/api.md §14), so the ClawHub
 * CLI reads them as it reads its own registry's: display name for name, summary for description,
 * the version installed by default as the `latest` tag, epoch milliseconds for times, and our public installs
 * (distinct clients, docs/api.md §10.2) as its downloads.
 */

export interface SkillListing {
  slug: string;
  name: string;
  description: string;
  currentVersion: string;
  /** The version installed by default when it is not the current one (core/version-behaviour.ts). */
  defaultVersion?: string | null;
  /** ISO 8601, as stored. */
  createdAt: string;
  updatedAt: string;
}

export interface VersionListing {
  version: string;
  changelog: string;
  publishedAt: string;
  /** The `SKILL.md` `license`, when the version's publish recorded one. */
  frontMatterLicense?: string;
}

const epochMs = (iso: string) => Date.parse(iso);

export function clawhubSkill(skill: SkillListing, installs: number): ClawhubSkill {
  return {
    slug: skill.slug,
    displayName: skill.name,
    summary: skill.description,
    // The latest a client installs is the newest cleared version, never one being observed.
    tags: { latest: defaultOfSkill(skill) ?? skill.currentVersion },
    stats: { downloads: installs, installsAllTime: installs },
    createdAt: epochMs(skill.createdAt),
    updatedAt: epochMs(skill.updatedAt),
  };
}

/**
 * A version as ClawHub lists it. Its clients take `MIT-0` or null as a licence and nothing else
 * (ClawHub publishes every skill under MIT-0), so a skill's own licence goes there only when it is
 * MIT-0; `declaredLicense` carries it as written, for whoever reads the JSON.
 */
export function clawhubVersion(version: VersionListing): ClawhubVersion {
  const declared = version.frontMatterLicense?.trim() || null;
  return {
    version: version.version,
    createdAt: epochMs(version.publishedAt),
    changelog: version.changelog,
    license: declared === 'MIT-0' ? 'MIT-0' : null,
    declaredLicense: declared,
  };
}

/**
 * ClawHub's moderation fields for a skill whose current version has `scan` (run at `scannedAt`,
 * ISO 8601) and, once its run in the sandbox ended, `observation`: the verdict it stands under,
 * and for a flagged one the rules that flagged it (the scan's and the run's) and a count of the
 * scan's findings by severity. Rule ids and counts only: nothing quotes the content, so a paid
 * skill's moderation says no more than its page does.
 */
export function clawhubModeration(version: Judged & { scan?: ScanResult }, scannedAt: string): ClawhubModeration {
  const { scan, observation } = version;
  const verdict = standingVerdict(version);
  const flagging = verdict === 'clean' || scan?.reviewed ? [] : (scan?.findings ?? []).filter((f) => severityRank(f.severity) >= severityRank('medium'));
  const ran = verdict === 'clean' ? [] : (observation?.evidence ?? []).filter((block) => block.verdict !== 'clean');
  const bySeverity = new Map<Severity, number>();
  for (const finding of flagging) bySeverity.set(finding.severity, (bySeverity.get(finding.severity) ?? 0) + 1);
  const counts = [...SEVERITIES]
    .reverse()
    .filter((severity) => bySeverity.has(severity))
    .map((severity) => `${bySeverity.get(severity)} ${severity}`);
  const said = [
    ...(flagging.length === 0 ? [] : [`Skillpress's scan flagged ${flagging.length} finding${flagging.length === 1 ? '' : 's'} (${counts.join(', ')})`]),
    ...(ran.length === 0 ? [] : [`its run in Skillpress's sandbox was flagged for ${[...new Set(ran.map((block) => block.rule))].join(', ')}`]),
  ];
  return {
    isSuspicious: verdict === 'suspicious',
    isMalwareBlocked: verdict === 'malicious',
    verdict,
    reasonCodes: [...new Set([...flagging.map((f) => f.rule), ...ran.map((block) => block.rule)])].sort(),
    summary: said.length === 0 ? null : `${said.join('; ')}: read them on the skill's page before use`,
    engineVersion: scan?.rulesVersion ?? null,
    updatedAt: scan ? epochMs(scannedAt) : null,
  };
}

/** A user as ClawHub names one: their login is the handle. */
export function clawhubUser(user: Pick<User, 'login' | 'name' | 'avatarUrl'>): { handle: string; displayName: string | null; image: string | null } {
  return { handle: user.login, displayName: user.name ?? null, image: user.avatarUrl ?? null };
}

/** What `/.well-known/clawdhub.json` says: the API is on this origin, under `/api/v1/`. */
export function clawhubWellKnown(origin: string): { apiBase: string } {
  return { apiBase: origin };
}
