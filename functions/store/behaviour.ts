import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Effects } from '#core/effects/effect';
import type { Behaviour, ObservationRecord } from '#core/version-behaviour';
import { type Db, writeIf } from './db.ts';
import { versionKey } from './keys.ts';

/**
 * What a version's observation writes on it (functions/services/behaviour.ts): its behaviour,
 * effects and the verdict of its run, and the count of its runs that could not finish.
 */

/**
 * Records the end of a pending version's run. Only a version still `pending` takes it, so a run
 * reported twice (a retried state machine, a retried handler) is recorded once. Gives whether it was.
 */
export function recordBehaviour(
  db: Db,
  skillId: string,
  version: string,
  outcome: { behaviour: Exclude<Behaviour, 'pending'>; effects: Effects; observation: ObservationRecord },
): Promise<boolean> {
  return writeIf(
    db,
    new UpdateCommand({
      TableName: db.table,
      Key: versionKey(skillId, version),
      UpdateExpression: 'SET behaviour = :b, effects = :e, observation = :o',
      ConditionExpression: 'attribute_exists(pk) AND behaviour = :pending',
      ExpressionAttributeValues: { ':b': outcome.behaviour, ':e': outcome.effects, ':o': outcome.observation, ':pending': 'pending' },
    }),
  );
}

/** Counts a run of a pending version that could not finish; gives the attempts so far, or undefined when the version is no longer pending. */
export async function countFailedRun(db: Db, skillId: string, version: string): Promise<number | undefined> {
  try {
    const { Attributes } = await db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: versionKey(skillId, version),
        UpdateExpression: 'SET failedRuns = if_not_exists(failedRuns, :zero) + :one',
        ConditionExpression: 'attribute_exists(pk) AND behaviour = :pending',
        ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':pending': 'pending' },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.failedRuns);
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
}
