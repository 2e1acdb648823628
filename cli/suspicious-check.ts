import { CliError } from './cli-error.ts';
import type { Target } from './installer.ts';
import type { Lockfile } from './lockfile.ts';
import { findingLines, type SuspiciousVersion } from './scan-findings.ts';
import { plural, type Ui } from './ui.ts';

/**
 * The install-time side of scanning (docs/scanning.md): a version the registry's scan found
 * suspicious is installed only when the user says so with `--allow-suspicious`, after seeing
 * its findings. Versions already installed at the same version are not asked about again, nor
 * versions an admin approved on appeal (`scan.reviewed`): their findings were read and accepted.
 * Returns the suspicious versions that go ahead, for the command's JSON result.
 */
export function checkSuspicious(targets: readonly Target[], lock: Lockfile, allow: boolean, ui: Ui): SuspiciousVersion[] {
  const suspicious = targets
    .filter((t) => t.scan?.verdict === 'suspicious' && !t.scan.reviewed && lock.skills.get(t.slug)?.version !== t.version)
    .map((t) => ({ slug: t.slug, version: t.version, scan: t.scan! }));
  if (suspicious.length === 0) return [];
  const names = suspicious.map((s) => `${s.slug}@${s.version}`).join(', ');
  if (!allow) {
    throw new CliError('suspicious_skill', `the registry's scan flags ${names} as suspicious; nothing was installed`, {
      details: { suspicious },
      hint: 'read the findings; install anyway with --allow-suspicious',
    });
  }
  for (const s of suspicious) {
    ui.warn(`${s.slug}@${s.version} is suspicious (${plural(s.scan.findings.length, 'finding')}); installing it as --allow-suspicious asks`);
    for (const line of findingLines(s.scan.findings)) ui.warn(`  ${line}`);
  }
  return suspicious;
}
