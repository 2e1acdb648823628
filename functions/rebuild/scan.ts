import { type Db, scanAll } from '../store/db.ts';
import { countsOf } from '../store/downloads.ts';
import { recordedVersion } from '../store/fingerprints.ts';
import { withSignatures } from '../store/signatures.ts';
import { idsOf } from '../store/lookalikes.ts';
import { toSkillItem, toVersionItem, withRecordedYanks } from '../store/skills.ts';
import { installPartitionOf, prefix, sortPrefix } from '../store/keys.ts';
import { type SkillFailure, skillFailure } from './skill-failure.ts';
import type { SkillState } from './skill-state.ts';

/** What the full rebuild reads in its one pass over the table. */
export interface ScannedTable {
  states: SkillState[];
  failed: SkillFailure[];
  /** Each skill's all-time distinct installs, every shard summed (skills never installed are absent). */
  installs: Map<string, number>;
  /** The lookalike index: each key's skill ids. */
  lookalikes: Map<string, Set<string>>;
}

/**
 * Every skill with its versions, install totals and the lookalike index, in one pass over the
 * table (parallel segments), for the full rebuild; or over shard `part.shard` of `part.shards`
 * equal parts of the table. A per-skill query would cost one round trip
 * per skill; a scan reads pages of items (and the filter only trims what comes back: the other
 * items are read all the same). A skill with an item that cannot be read (damaged, or written
 * by hand) is a failure of that skill alone: the others are read all the same.
 */
export async function scanSkillStates(db: Db, part: { shard: number; shards: number } = { shard: 0, shards: 1 }): Promise<ScannedTable> {
  // Each shard scans four segments of its own, in parallel: a skill's items are all in one of them.
  const segments = { total: SEGMENTS_PER_SHARD * part.shards, only: Array.from({ length: SEGMENTS_PER_SHARD }, (_, i) => part.shard * SEGMENTS_PER_SHARD + i) };
  const installs = new Map<string, number>();
  const lookalikes = new Map<string, Set<string>>();
  const states = new Map<string, SkillState>();
  const versions = new Map<string, SkillState['versions']>();
  const fingerprints = new Map<string, Map<string, string>>();
  const signatures = new Map<string, Record<string, unknown>[]>();
  const damaged = new Map<string, SkillFailure>();
  await scanAll(
    db,
    {
      FilterExpression: 'begins_with(pk, :skill) OR begins_with(pk, :lookalike) OR (begins_with(pk, :installs) AND sk = :total)',
      ExpressionAttributeValues: { ':skill': prefix.skill, ':lookalike': prefix.lookalike, ':installs': prefix.installs, ':total': 'TOTAL' },
    },
    (item) => {
      const pk = String(item.pk);
      if (pk.startsWith(prefix.installs)) {
        // A hot skill's total is in several shards: their distinct installs add up.
        const { skillId } = installPartitionOf(pk);
        installs.set(skillId, (installs.get(skillId) ?? 0) + countsOf(item).distinct);
        return;
      }
      if (pk.startsWith(prefix.lookalike)) {
        lookalikes.set(pk.slice(prefix.lookalike.length), new Set(idsOf(item)));
        return;
      }
      const id = pk.slice(prefix.skill.length);
      try {
        if (item.sk === 'META') states.set(id, { skill: toSkillItem(item), versions: [], fingerprints: new Map() });
        else if (String(item.sk).startsWith(sortPrefix.version)) {
          const list = versions.get(id) ?? [];
          list.push(toVersionItem(item));
          versions.set(id, list);
        } else if (String(item.sk).startsWith(sortPrefix.signature)) {
          signatures.set(id, [...(signatures.get(id) ?? []), item]);
        } else {
          const recorded = recordedVersion(item);
          if (recorded) fingerprints.set(id, (fingerprints.get(id) ?? new Map()).set(recorded.fingerprint, recorded.version));
        }
      } catch (error) {
        damaged.set(id, skillFailure({ skillId: id }, error));
      }
    },
    segments,
  );
  const result: SkillState[] = [];
  for (const [id, state] of states) {
    const list = versions.get(id);
    if (!damaged.has(id) && list && list.length > 0)
      result.push({
        skill: state.skill,
        versions: withRecordedYanks(state.skill, withSignatures(list, signatures.get(id) ?? [])),
        fingerprints: fingerprints.get(id) ?? new Map(),
      });
  }
  const failed = [...damaged.values()].map((failure) => {
    const slug = states.get(failure.skillId)?.skill.slug;
    return slug === undefined ? failure : { ...failure, slug };
  });
  return { states: result, failed, installs, lookalikes };
}

const SEGMENTS_PER_SHARD = 4;
