// Lambda entry: the DynamoDB stream → incremental rebuild of the static files, then the site build.
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { configFromEnv } from '../platform/config.ts';
import { createDeps } from '../platform/composition.ts';
import { Rebuilder } from '../rebuild/rebuilder.ts';
import { changedSkillIds } from '../rebuild/stream-event.ts';
import { triggerSiteBuild } from '../services/site-build.ts';

const deps = createDeps(configFromEnv());
const rebuilder = new Rebuilder(deps);

/**
 * Throws on failure so the event source mapping retries the batch (then bisects, then DLQ). The
 * site build request after it never throws: a missed one stays owed to the scheduled flush.
 */
export async function handler(event: DynamoDBStreamEvent): Promise<void> {
  const ids = changedSkillIds(event);
  if (ids.length === 0) return;
  await rebuilder.rebuild(ids);
  await triggerSiteBuild(deps);
}
