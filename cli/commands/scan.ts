import { resolve } from 'node:path';
import { decodeFile, type FileBytes } from '../../core/bundle.ts';
import type { ScanResult } from '../../core/scan/finding.ts';
import { CliError } from '../cli-error.ts';
import { findingLines } from '../scan-findings.ts';
import { readSkillFolder } from '../skill-folder.ts';
import { formatBytes, plural, type CommandIo } from '../ui.ts';

export interface ScanOptions {
  dir: string;
}

export interface ScanReport extends ScanResult {
  dir: string;
  files: number;
  bytes: number;
}

/**
 * `skillpress scan [dir]`: runs the registry's own scanner (core/scan) over the files
 * `skillpress publish` would send, so an author sees the verdict and findings before the
 * registry does. Clean is a success; a suspicious verdict fails with `suspicious_skill` (the
 * registry would publish it, but installers would have to pass --allow-suspicious) and a
 * malicious one with `content_rejected` (the registry would refuse it), both exit 1 with the
 * findings in the error's details.
 */
export async function scan(options: ScanOptions, io: CommandIo): Promise<ScanReport> {
  const { ui } = io;
  const { c } = ui;
  const dir = resolve(io.cwd, options.dir);
  const folder = await readSkillFolder(dir);
  const files = folder.files.map(decodeFile).filter((f): f is FileBytes => f !== null);
  // The engine is loaded only for this command: installs never pay for it.
  const { scanFiles } = await import('../../core/scan/scan.ts');
  const result = scanFiles(files);
  const report: ScanReport = { dir: options.dir, files: files.length, bytes: folder.bytes, ...result };
  const summary = `${options.dir}: ${plural(files.length, 'file')}, ${formatBytes(folder.bytes)}, rules ${result.rulesVersion}`;

  if (result.verdict === 'clean') {
    ui.line(`${c.green('clean')} ${summary}`);
    // Low findings never change a verdict, but they are worth a look.
    for (const line of findingLines(result.findings)) ui.line(c.dim(`  ${line}`));
    return report;
  }
  const details = { verdict: result.verdict, rulesVersion: result.rulesVersion, findings: result.findings };
  if (result.verdict === 'suspicious') {
    throw new CliError('suspicious_skill', `${summary}: suspicious (${plural(result.findings.length, 'finding')}); the registry would publish it, flagged`, {
      details,
      hint: 'installers must pass --allow-suspicious; remove what the findings name if it is not needed',
    });
  }
  throw new CliError('content_rejected', `${summary}: malicious; the registry would refuse it (422 content_rejected)`, {
    details,
    hint: 'critical findings are patterns an honest skill does not need; see docs/scanning.md',
  });
}
