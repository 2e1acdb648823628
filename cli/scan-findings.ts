import type { Finding, ScanResult } from '../core/scan/finding.ts';
import type { Ui } from './ui.ts';

/**
 * Findings of the scanner (docs/scanning.md) as the terminal shows them, one line each:
 * `high  pipe-to-shell  SKILL.md:8  pipes a download straight into a shell…`. Used wherever a
 * scan reaches the user: `skillpress scan`, the refusal of a suspicious install, and the
 * findings of a publish the registry refused.
 */
export function findingLines(findings: readonly Finding[]): string[] {
  return findings.map((f) => `${f.severity.padEnd(8)} ${f.rule}  ${f.file}${f.line > 0 ? `:${f.line}` : ''}  ${f.message}`);
}

/** A suspicious version the client was asked to install. */
export interface SuspiciousVersion {
  slug: string;
  version: string;
  scan: ScanResult;
}

/**
 * The lines for an error's `details` when they carry findings: the registry's
 * `{findings}` of a refused publish, or the client's `{suspicious: [...]}` of a refused install;
 * undefined for any other details.
 */
export function findingDetailLines(details: unknown): string[] | undefined {
  if (details === null || typeof details !== 'object') return undefined;
  const { findings, suspicious } = details as { findings?: unknown; suspicious?: unknown };
  if (Array.isArray(findings)) return findingLines(findings as Finding[]);
  if (Array.isArray(suspicious)) {
    return (suspicious as SuspiciousVersion[]).flatMap((s) => [`${s.slug}@${s.version}:`, ...findingLines(s.scan.findings).map((line) => `  ${line}`)]);
  }
  return undefined;
}

/**
 * After a publish: a suspicious verdict is published, but every installer will be asked to
 * confirm it, so the author hears why at once. Older registries answer without a scan.
 */
export function warnIfFlagged(ui: Ui, what: string, scan: ScanResult | undefined): void {
  if (scan?.verdict !== 'suspicious') return;
  ui.warn(`${what} is published as suspicious: installers must pass --allow-suspicious. The findings:`);
  for (const line of findingLines(scan.findings)) ui.warn(`  ${line}`);
}
