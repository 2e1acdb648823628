import type { FileBytes } from '#core/bundle';
import { DomainError } from '#core/errors';
import type { ScanResult } from '#core/scan/finding';
import type { ScanFile, ScanOptions } from '#core/scan/scan';
import type { Deps } from '../platform/composition.ts';

/**
 * The publish-time scan (docs/scanning.md): every version's files go through the rule engine
 * before anything is stored; a malicious verdict refuses the version.
 */

/** Scans a version's files; the port through which publishing and the rescan reach the engine. */
export type Scanner = (files: readonly ScanFile[], options: ScanOptions) => Promise<ScanResult>;

/**
 * The rule engine, loaded on first use: it is about a fifth of a publish Lambda's code, and a
 * cold start that ends in a 400 or a 409 should not pay for parsing it.
 */
export const ruleEngine: Scanner = async (files, options) => (await import('#core/scan/scan')).scanFiles(files, options);

/** The scanner `deps` name, or the rule engine: what every scan goes through. */
export function scannerOf(deps: Pick<Deps, 'scanner'>): Scanner {
  return deps.scanner ?? ruleEngine;
}

/**
 * Scans a version about to be published and returns the scan to store with it. Paid skills are
 * scanned without excerpts: their findings are public, their content is not. Throws
 * `422 content_rejected`, with the findings, when the verdict is malicious.
 */
export async function scanForPublish(deps: Pick<Deps, 'scanner'>, files: readonly FileBytes[], paid: boolean): Promise<ScanResult> {
  const scan = await scannerOf(deps)(files, { quote: !paid });
  if (scan.verdict !== 'malicious') return scan;
  const critical = scan.findings.filter((f) => f.severity === 'critical');
  const first = critical[0] ?? scan.findings[0];
  throw new DomainError(
    'content_rejected',
    `The version was refused: ${critical.length} critical ${critical.length === 1 ? 'finding' : 'findings'}` +
      (first ? `, first ${first.rule} in ${first.file}:${first.line}` : '') +
      '. Nothing was stored; see details.findings, or run skillpress scan on the folder',
    { rulesVersion: scan.rulesVersion, findings: scan.findings },
  );
}
