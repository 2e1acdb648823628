import type { DynamoDBStreamEvent } from 'aws-lambda';
import { skillIdOfKey } from '../store/keys.ts';

/**
 * The skills a batch of DynamoDB stream records touched: every record on a `SKILL#<id>` item
 * (META or a version). Other entities (keys, sessions, counters) change no static file.
 */
export function changedSkillIds(event: DynamoDBStreamEvent): string[] {
  const ids = new Set<string>();
  for (const record of event.Records ?? []) {
    const pk = record.dynamodb?.Keys?.pk?.S;
    const id = skillIdOfKey(pk);
    if (id) ids.add(id);
  }
  return [...ids];
}
