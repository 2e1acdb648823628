import type { ClawhubSkill, ClawhubVersion } from './clawhub-schemas.ts';
import type { User } from './schemas.ts';

/**
 * Skillpress's skills in the shapes of ClawHub's registry API (docs/api.md §14), so the ClawHub
 * CLI reads them as it reads its own registry's: display name for name, summary for description,
 * the current version as the `latest` tag, epoch milliseconds for times, and our public installs
 * (distinct clients, docs/api.md §10.2) as its downloads.
 */

export interface SkillListing {
  slug: string;
  name: string;
  description: string;
  currentVersion: string;
  /** ISO 8601, as stored. */
  createdAt: string;
  updatedAt: string;
}

export interface VersionListing {
  version: string;
  changelog: string;
  publishedAt: string;
}

const epochMs = (iso: string) => Date.parse(iso);

export function clawhubSkill(skill: SkillListing, installs: number): ClawhubSkill {
  return {
    slug: skill.slug,
    displayName: skill.name,
    summary: skill.description,
    tags: { latest: skill.currentVersion },
    stats: { downloads: installs, installsAllTime: installs },
    createdAt: epochMs(skill.createdAt),
    updatedAt: epochMs(skill.updatedAt),
  };
}

export function clawhubVersion(version: VersionListing): ClawhubVersion {
  return { version: version.version, createdAt: epochMs(version.publishedAt), changelog: version.changelog };
}

/** A user as ClawHub names one: their login is the handle. */
export function clawhubUser(user: Pick<User, 'login' | 'name' | 'avatarUrl'>): { handle: string; displayName: string | null; image: string | null } {
  return { handle: user.login, displayName: user.name ?? null, image: user.avatarUrl ?? null };
}

/** What `/.well-known/clawdhub.json` says: the API is on this origin, under `/api/v1/`. */
export function clawhubWellKnown(origin: string): { apiBase: string } {
  return { apiBase: origin };
}
