// Lambda entry: the DynamoDB stream → incremental rebuild of the static files, then the site
// build; and, every minute, the whole catalog assembled from its pages when they changed.
import type { DynamoDBBatchResponse, DynamoDBStreamEvent, ScheduledEvent } from 'aws-lambda';
import { awsDeps } from '../platform/composition.ts';
import { Rebuilder } from '../rebuild/rebuilder.ts';
import { failureFields } from '../rebuild/skill-failure.ts';
import { batchItemFailures, changedSkillIds } from '../rebuild/stream-event.ts';
import { triggerSiteBuild } from '../services/site-build.ts';

const deps = awsDeps();
// A write patches one page of the catalog and its index; the whole catalog is the schedule's.
const rebuilder = new Rebuilder(deps, { catalogAssembly: 'scheduled' });

/**
 * A stream batch: rebuilds every skill of the batch on its own and reports the records of the
 * skills that failed (a partial batch response), so that the event source mapping retries only
 * from them, then bisects and dead-letters what keeps failing. Throws when the rebuild as a whole
 * fails (the index lock, the catalog write): then the whole batch is retried. The site build
 * request after it never throws: a missed one stays owed to the scheduled flush.
 *
 * The schedule (EventBridge, every minute): `/.well-known/skills.json` and its compressed copies
 * from the catalog's pages, unless they were assembled from the index as it stands.
 */
export async function handler(event: DynamoDBStreamEvent | ScheduledEvent): Promise<DynamoDBBatchResponse | { assembled: boolean }> {
  if (!('Records' in event)) {
    const assembled = await rebuilder.assembleCatalog();
    if (assembled) deps.log.info('assembled the catalog from its pages');
    return { assembled };
  }
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
