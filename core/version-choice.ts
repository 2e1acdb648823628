import valid from 'semver/functions/valid.js';
import { isValidRange } from './semver-range.ts';
import { isValidSlug } from './slug.ts';

/**
 * What an install asks for (`slug`, `slug@1.2.0`, `slug@^1.0.0`, `slug@latest`) and which of a
 * skill's published versions such a request may choose: the rules the CLI resolves with, and
 * that the batch resolve (docs/api.md §7.17) answers enough for, so both read them from here.
 */

export const LATEST = 'latest';

export interface SkillRequest {
  slug: string;
  /** `latest`, an exact version or a semver range. */
  spec: string;
}

/**
 * `slug[@spec]` split at its first `@`, an empty spec read as `latest`; with the `problem` when
 * the slug breaks the slug rule or the spec is neither a version nor a range.
 */
export function readSkillRequest(arg: string): SkillRequest | { slug: string; problem: 'slug' | 'spec'; spec: string } {
  const at = arg.indexOf('@');
  const slug = at < 0 ? arg : arg.slice(0, at);
  const spec = at < 0 ? LATEST : arg.slice(at + 1).trim() || LATEST;
  if (!isValidSlug(slug)) return { slug, spec, problem: 'slug' };
  if (spec !== LATEST && !isValidRange(spec)) return { slug, spec, problem: 'spec' };
  return { slug, spec };
}

/**
 * A published version as resolution needs it: yanked ones are never chosen by a range, nor are
 * versions the registry has not cleared by observing them (docs/api.md, "Behaviour").
 */
export interface Candidate {
  version: string;
  yanked?: boolean;
  /** `pending` while the registry observes it, `refused` when it did not clear it; absent: cleared (published before observation). */
  behaviour?: string;
}

/** Whether a range or `latest` may choose a version by its behaviour: cleared, pending when allowed, refused never. */
export function choosable(candidate: Candidate, allowPending = false): boolean {
  const { behaviour } = candidate;
  return behaviour === undefined || behaviour === 'cleared' || (allowPending && behaviour === 'pending');
}

/**
 * Whether a spec can be answered from the registry document's newest versions alone, or needs
 * the whole versions document: `latest` when the current version may not be chosen (an older
 * one may be), a range always (an old backport may be its best match), an exact version not
 * among the newest.
 */
export function needsAllVersions(spec: string, newest: readonly Candidate[], currentVersion: string, allowPending = false): boolean {
  if (spec === LATEST) {
    const current = newest.find((v) => v.version === currentVersion);
    return current !== undefined && !choosable(current, allowPending);
  }
  const exact = valid(spec);
  return !(exact && (exact === currentVersion || newest.some((v) => v.version === exact)));
}
