import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../store/db.ts';
import { toSkillItem, toVersionItem } from '../store/skills.ts';
import type { SkillState } from './skill-state.ts';
import { prefix, sortPrefix } from '../store/keys.ts';

/**
 * Every skill with its versions in one pass over the table (parallel segments), for the full
 * rebuild. A per-skill query would cost one round trip per skill; a scan reads pages of items.
 */
export async function scanSkillStates(db: Db, segments = 4): Promise<SkillState[]> {
  const states = new Map<string, SkillState>();
  const versions = new Map<string, SkillState['versions']>();
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
          const id = (item.pk as string).slice(prefix.skill.length);
          if (item.sk === 'META') states.set(id, { skill: toSkillItem(item), versions: [] });
          else if ((item.sk as string).startsWith(sortPrefix.version)) {
            const list = versions.get(id) ?? [];
            list.push(toVersionItem(item));
            versions.set(id, list);
          }
        }
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
    }),
  );
  const result: SkillState[] = [];
  for (const [id, state] of states) {
    const list = versions.get(id);
    if (list && list.length > 0) result.push({ skill: state.skill, versions: list });
  }
  return result;
}
