// Lambda entry: the DynamoDB stream → incremental rebuild of the static files, then the site build.
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { awsDeps } from '../platform/composition.ts';
import { Rebuilder } from '../rebuild/rebuilder.ts';
import { failureFields } from '../rebuild/skill-failure.ts';
import { batchItemFailures, changedSkillIds } from '../rebuild/stream-event.ts';
import { triggerSiteBuild } from '../services/site-build.ts';

const deps = awsDeps();
const rebuilder = new Rebuilder(deps);

/**
 * Rebuilds every skill of the batch on its own and reports the records of the skills that failed
 * (a partial batch response), so that the event source mapping retries only from them, then
 * bisects and dead-letters what keeps failing. Throws when the rebuild as a whole fails (the
 * index lock, the catalog write): then the whole batch is retried. The site build request after
 * it never throws: a missed one stays owed to the scheduled flush.
 */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const ids = changedSkillIds(event);
  if (ids.length === 0) return { batchItemFailures: [] };
  const failed = await rebuilder.rebuild(ids);
  for (const failure of failed) deps.log.error('rebuild of a skill failed; the stream retries it', failureFields(failure));
  await triggerSiteBuild(deps);
  return batchItemFailures(
    event,
    failed.map((f) => f.skillId),
  );
}
