import { type ScanResult, type Verdict, worseVerdict } from './finding.ts';

/** What a version was judged on: its scan, and the verdict of its run in the sandbox once it ended. */
export interface Judged {
  scan?: Pick<ScanResult, 'verdict' | 'reviewed'>;
  observation?: { verdict: Verdict; evidence: readonly { rule: string; verdict: Verdict }[] };
}

/**
 * The verdict a version stands under wherever a client is told it without its findings (the
 * catalog, the discovery indexes, ClawHub's moderation fields; docs/api.md §11.5): the worse of
 * what its scan and its run came to. The scan's counts as `clean` for a version an admin approved
 * on appeal (its findings were read and accepted, as `skillpress install` treats it) and for a
 * version stored before scanning, which no rule has found anything in. The run's is what it did:
 * a version whose run wrote where it persists stands as suspicious, whatever its text looked like.
 */
export function standingVerdict(judged: Judged | undefined): Verdict {
  const scanned = judged?.scan === undefined || judged.scan.reviewed !== undefined ? 'clean' : judged.scan.verdict;
  return worseVerdict(scanned, judged?.observation?.verdict ?? 'clean');
}
