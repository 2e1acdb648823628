import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../store/db.ts';
import { toSkillItem, toVersionItem } from '../store/skills.ts';
import { prefix, sortPrefix } from '../store/keys.ts';
import { type SkillFailure, skillFailure } from './skill-failure.ts';
import type { SkillState } from './skill-state.ts';

/**
 * Every skill with its versions in one pass over the table (parallel segments), for the full
 * rebuild. A per-skill query would cost one round trip per skill; a scan reads pages of items.
 * A skill with an item that cannot be read (damaged, or written by hand) is a failure of that
 * skill alone: the others are read all the same.
 */
export async function scanSkillStates(db: Db, segments = 4): Promise<{ states: SkillState[]; failed: SkillFailure[] }> {
  const states = new Map<string, SkillState>();
  const versions = new Map<string, SkillState['versions']>();
  const damaged = new Map<string, SkillFailure>();
  await Promise.all(
    Array.from({ length: segments }, async (_, segment) => {
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await db.doc.send(
          new ScanCommand({
            TableName: db.table,
            Segment: segment,
            TotalSegments: segments,
            FilterExpression: 'begins_with(pk, :skill)',
            ExpressionAttributeValues: { ':skill': prefix.skill },
            ExclusiveStartKey,
          }),
        );
        for (const item of page.Items ?? []) {
          const id = String(item.pk).slice(prefix.skill.length);
          try {
            if (item.sk === 'META') states.set(id, { skill: toSkillItem(item), versions: [] });
            else if (String(item.sk).startsWith(sortPrefix.version)) {
              const list = versions.get(id) ?? [];
              list.push(toVersionItem(item));
              versions.set(id, list);
            }
          } catch (error) {
            damaged.set(id, skillFailure({ skillId: id }, error));
          }
        }
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
    }),
  );
  const result: SkillState[] = [];
  for (const [id, state] of states) {
    const list = versions.get(id);
    if (!damaged.has(id) && list && list.length > 0) result.push({ skill: state.skill, versions: list });
  }
  const failed = [...damaged.values()].map((failure) => {
    const slug = states.get(failure.skillId)?.skill.slug;
    return slug === undefined ? failure : { ...failure, slug };
  });
  return { states: result, failed };
}
