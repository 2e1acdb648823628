import semver from 'semver';
import { currentOf, isRelease } from '../core/semver-order.ts';
import { maxSatisfying } from '../core/semver-range.ts';
import { type Candidate, choosable, LATEST, readSkillRequest, type SkillRequest } from '../core/version-choice.ts';
import { usage } from './cli-error.ts';

/**
 * What a user asks for on the command line (`slug`, `slug@1.2.0`, `slug@^1.0.0`, `slug@latest`)
 * and the rules that turn it into one published version. Pure: the caller fetches the lists.
 */

export function parseRequest(arg: string): SkillRequest {
  const request = readSkillRequest(arg);
  if ('problem' in request && request.problem === 'slug')
    throw usage(`"${arg}" does not start with a skill slug (lower-case letters, digits and hyphens)`, 'e.g. skillpress install pretty-json@^1.2.0');
  if ('problem' in request) throw usage(`"${request.spec}" is neither a version nor a semver range`, 'use 1.2.3, ^1.2.0, ~1.2, >=1.0.0 <2 or latest');
  return request;
}

export interface ResolveChoice {
  /** `--allow-pending`: versions still being observed may be chosen too. */
  allowPending?: boolean;
  /** The version installed now, which stays when it is a pending one newer than what would be chosen. */
  installed?: string;
}

/**
 * The version a spec selects: `latest` is the registry's current version (the highest release
 * that is not yanked) when it may be chosen, else the highest release that may; an exact version
 * must exist, and is installed even when yanked, pending or refused (the user named it); a range
 * takes the highest satisfying version that is neither yanked nor refused nor (unless allowed)
 * pending, and like npm it skips prereleases unless the range itself names one. A pending
 * version already installed stays rather than giving way to an older cleared one. Null when
 * nothing matches.
 */
export function resolveVersion(spec: string, versions: readonly Candidate[], currentVersion: string, choice: ResolveChoice = {}): string | null {
  const exact = semver.valid(spec);
  if (exact) return versions.some((v) => v.version === exact) ? exact : null;
  const open = versions.filter((v) => !v.yanked && choosable(v, choice.allowPending));
  let chosen: string | null;
  if (spec === LATEST) {
    const current = versions.find((v) => v.version === currentVersion);
    chosen = !current || choosable(current, choice.allowPending) ? currentVersion : (currentOf(open.map((v) => v.version)) ?? null);
  } else {
    chosen = maxSatisfying(
      open.map((v) => v.version),
      spec,
    );
  }
  const installed = versions.find((v) => v.version === choice.installed);
  const keep = installed?.behaviour === 'pending' && !installed.yanked && satisfies(installed.version, spec);
  return keep && (chosen === null || semver.gt(installed.version, chosen)) ? installed.version : chosen;
}

/** Whether an installed version still answers a spec (a prerelease only when the spec names it). */
export function satisfies(version: string, spec: string): boolean {
  if (spec === LATEST) return true;
  return semver.satisfies(version, spec);
}

export interface Changelog {
  version: string;
  changelog: string;
  publishedAt: string;
}

/**
 * The changelogs a user should read when moving from `from` to `to`: every version above `from`
 * up to and including `to`, oldest first. Prereleases on the way are left out (they are not
 * what anyone installs), unless `to` is one.
 */
export function changelogsBetween(versions: readonly Changelog[], from: string, to: string): Changelog[] {
  if (!semver.gt(to, from)) return [];
  return versions
    .filter((v) => semver.gt(v.version, from) && semver.lte(v.version, to) && (isRelease(v.version) || v.version === to))
    .sort((a, b) => semver.compare(a.version, b.version))
    .map(({ version, changelog, publishedAt }) => ({ version, changelog, publishedAt }));
}
