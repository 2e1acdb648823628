// Lambda entry: the DynamoDB stream → incremental rebuild of the static files.
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { configFromEnv } from './config.ts';
import { createDeps } from './deps.ts';
import { Rebuilder } from './rebuild/rebuilder.ts';
import { changedSkillIds } from './rebuild/stream-event.ts';

const rebuilder = new Rebuilder(createDeps(configFromEnv()));

/** Throws on failure so the event source mapping retries the batch (then bisects, then DLQ). */
export async function handler(event: DynamoDBStreamEvent): Promise<void> {
  const ids = changedSkillIds(event);
  if (ids.length > 0) await rebuilder.rebuild(ids);
}
