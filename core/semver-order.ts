// The semver functions one by one: the package's index loads its ranges too, which only
// semver-range.ts needs (a Lambda's cold start loads what a module imports).
import compare from 'semver/functions/compare.js';
import parse from 'semver/functions/parse.js';
import { invalidRequest } from './errors.ts';

/**
 * The "latest" rule (docs/api.md §8): the current version is the highest semver precedence among
 * a skill's non-prerelease versions. Backports and prereleases are stored but never current.
 */

/** Whether `version` is semver exactly as written (no `v`, no spaces, no build metadata). */
export function isStrictVersion(version: string): boolean {
  return version.length <= 256 && parse(version)?.version === version;
}

/** Checks that `version` is strict semver as sent (no `v`, no spaces, no build metadata). */
export function assertStrictVersion(version: string): string {
  if (!isStrictVersion(version)) {
    throw invalidRequest(`"${version.slice(0, 64)}" is not a strict semver version such as 1.2.3`, {
      issues: [{ path: ['version'], message: 'expected MAJOR.MINOR.PATCH with an optional -prerelease' }],
    });
  }
  if (version.includes('+')) {
    throw invalidRequest('Build metadata (+...) is not allowed: it does not change precedence, so it cannot tell versions apart', {
      issues: [{ path: ['version'], message: 'remove the +build suffix' }],
    });
  }
  return version;
}

export function isRelease(version: string): boolean {
  return (parse(version)?.prerelease.length ?? 0) === 0;
}

const KEY_DIGITS = 16; // Number.MAX_SAFE_INTEGER has 16 digits, and semver rejects larger parts.

/**
 * A string that sorts like semver precedence for release versions, so DynamoDB can compare it
 * in a condition expression (`currentKey < :key`) and concurrent publishes converge.
 */
export function releaseKey(version: string): string {
  const parsed = parse(version);
  if (!parsed || parsed.prerelease.length > 0) throw new Error(`releaseKey needs a release version, got ${version}`);
  return [parsed.major, parsed.minor, parsed.patch].map((n) => String(n).padStart(KEY_DIGITS, '0')).join('.');
}

/** Whether publishing `candidate` moves `currentVersion` away from `current`. */
export function becomesCurrent(candidate: string, current: string | undefined): boolean {
  if (!isRelease(candidate)) return false;
  return current === undefined || compare(candidate, current) > 0;
}

/** The current version of a set of versions, or undefined when none is a release. */
export function currentOf(versions: Iterable<string>): string | undefined {
  let best: string | undefined;
  for (const v of versions) if (becomesCurrent(v, best)) best = v;
  return best;
}

/** Sorts versions by descending precedence (highest first). */
export function byPrecedenceDesc(a: string, b: string): number {
  return compare(b, a);
}
