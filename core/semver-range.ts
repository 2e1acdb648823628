import maxSatisfyingOf from 'semver/ranges/max-satisfying.js';
import validRange from 'semver/ranges/valid.js';

/**
 * Semver ranges, as dependencies declare them and the CLI resolves them: apart from the version
 * order (semver-order.ts), whose readers — most Lambdas — never parse a range.
 */

/** The highest version satisfying `range`, prereleases only when the range names one. */
export function maxSatisfying(versions: string[], range: string): string | null {
  return maxSatisfyingOf(versions, range);
}

export function isValidRange(range: string): boolean {
  return range.length <= 256 && validRange(range) !== null;
}
