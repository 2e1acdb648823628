import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { skillIdOfKey } from '../store/keys.ts';

/** The skill a stream record is about: any record on a skill's META or one of its versions. */
function skillIdOf(record: DynamoDBRecord): string | undefined {
  return skillIdOfKey(record.dynamodb?.Keys?.pk?.S, record.dynamodb?.Keys?.sk?.S);
}

/**
 * The skills a batch of DynamoDB stream records touched. Other entities (keys, sessions,
 * counters) change no static file, and fingerprints are the rebuild's own output.
 */
export function changedSkillIds(event: DynamoDBStreamEvent): string[] {
  const ids = new Set<string>();
  for (const record of event.Records ?? []) {
    const id = skillIdOf(record);
    if (id) ids.add(id);
  }
  return [...ids];
}

/**
 * The partial batch response for a batch whose rebuild failed for `failedSkillIds` (every other
 * skill was rebuilt): the first record of each failed skill. Lambda checkpoints before the lowest
 * of them and retries from there, so the failed skills come again (the others, rebuilt again,
 * write the same bytes), and a skill that never succeeds is dead-lettered after the event source
 * mapping's retries instead of holding the shard.
 */
export function batchItemFailures(event: DynamoDBStreamEvent, failedSkillIds: Iterable<string>): DynamoDBBatchResponse {
  const failed = new Set(failedSkillIds);
  const reported = new Set<string>();
  const batchItemFailures: DynamoDBBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records ?? []) {
    const id = skillIdOf(record);
    const sequenceNumber = record.dynamodb?.SequenceNumber;
    if (!id || !failed.has(id) || reported.has(id) || !sequenceNumber) continue;
    reported.add(id);
    batchItemFailures.push({ itemIdentifier: sequenceNumber });
  }
  return { batchItemFailures };
}
