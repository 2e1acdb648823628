import { reviewStands } from '#core/appeals';
import { canonicalJson } from '#core/canonical-json';
import type { ScanResult } from '#core/scan/finding';
import { getFiles } from '../content/blobs.ts';
import type { Deps } from '../platform/composition.ts';
import { scanSkillStates } from '../rebuild/scan.ts';
import { eachSkill, type SkillFailure } from '../rebuild/skill-failure.ts';
import type { SkillState } from '../rebuild/skill-state.ts';
import { quarantineSkill, setVersionScan } from '../store/moderation.ts';
import { scannerOf } from './scanning.ts';

/**
 * `npm run rescan`: every version scanned again with the current rules (docs/scanning.md). A
 * version whose scan changed gets the new one stored; a skill with a version that is now
 * malicious is quarantined, as three reporters would (docs/api.md §7.10). A version admins
 * approved on appeal keeps its review (and is no reason to quarantine) while every finding is one
 * they saw; a new finding drops the review, and the version is judged as any other. A skill that cannot be
 * rescanned (a missing blob, a damaged item) is reported alone; the others are rescanned.
 */
export interface RescanReport {
  skills: number;
  versions: number;
  /** Versions whose stored scan changed (new findings, new rules, or none stored before). */
  changed: number;
  /** Slugs of the skills this rescan quarantined. */
  quarantined: string[];
  failed: SkillFailure[];
}

export async function rescanAll(deps: Deps): Promise<RescanReport> {
  const { states, failed: unread } = await scanSkillStates(deps.db);
  let versions = 0;
  let changed = 0;
  const quarantined: string[] = [];
  const touched: string[] = [];
  const { failed } = await eachSkill(
    states,
    4,
    ({ skill }) => ({ skillId: skill.id, slug: skill.slug }),
    async (state: SkillState) => {
      const { skill } = state;
      const malicious: string[] = [];
      let rules = '';
      let skillChanged = false;
      for (const version of state.versions) {
        const fresh = await scannerOf(deps)(await getFiles(deps.blobs, version.files), { quote: !skill.paid });
        // An admin approved this version on appeal: the review stands while the rules find nothing they did not see.
        const reviewed = version.scan?.reviewed;
        const scan = reviewed && reviewStands(version.scan!, fresh) ? { ...fresh, reviewed } : fresh;
        versions += 1;
        rules = scan.rulesVersion;
        if (scan.verdict === 'malicious' && !scan.reviewed) malicious.push(version.version);
        if (sameScan(version.scan, scan)) continue;
        await setVersionScan(deps.db, skill.id, version.version, scan, deps.clock().toISOString());
        changed += 1;
        skillChanged = true;
      }
      if (malicious.length > 0 && !skill.quarantine) {
        const reason = `a rescan (rules ${rules}) finds ${malicious.join(', ')} malicious`;
        if (await quarantineSkill(deps.db, skill.id, { reason, since: deps.clock().toISOString(), by: 'rescan' })) {
          quarantined.push(skill.slug);
          skillChanged = true;
        }
      }
      if (skillChanged) touched.push(skill.id);
    },
  );
  if (touched.length > 0) deps.changed(touched);
  return { skills: states.length, versions, changed, quarantined, failed: [...unread, ...failed] };
}

function sameScan(stored: ScanResult | undefined, fresh: ScanResult): boolean {
  return stored !== undefined && canonicalJson(stored) === canonicalJson(fresh);
}
