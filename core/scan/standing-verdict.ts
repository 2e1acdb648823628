import type { ScanResult, Verdict } from './finding.ts';

/**
 * The verdict a version stands under wherever a client is told it without its findings (the
 * catalog, the discovery indexes, ClawHub's moderation fields; docs/api.md §11.5): the scanner's,
 * except that a version an admin approved on appeal stands as `clean` (its findings were read and
 * accepted, as `skillpress install` treats it), and so does a version stored before scanning,
 * which no rule has found anything in.
 */
export function standingVerdict(scan: Pick<ScanResult, 'verdict' | 'reviewed'> | undefined): Verdict {
  if (scan === undefined || scan.reviewed !== undefined) return 'clean';
  return scan.verdict;
}
