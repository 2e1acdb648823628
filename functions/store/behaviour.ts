import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Effects } from '#core/effects/effect';
import { releaseKey } from '#core/semver-order';
import type { Behaviour, ObservationRecord } from '#core/version-behaviour';
import { type Db, writeIf } from './db.ts';
import { skillKey, versionKey } from './keys.ts';

/**
 * What a version's observation writes (functions/services/behaviour.ts): the version's behaviour
 * and effects, and the skill's current and default versions that follow from them.
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

/**
 * Moves META's current and default versions to what the versions now say, if the current version
 * is still `seen` (a publish that moved it since wins; the rebuild's repair settles the rest).
 * `defaultVersion` undefined removes the attribute: the current version is the default.
 */
export function setCurrentAndDefault(db: Db, skillId: string, seen: string, current: string, defaultVersion: string | null | undefined): Promise<boolean> {
  const set = ['currentVersion = :v', 'currentKey = :k', ...(defaultVersion === undefined ? [] : ['defaultVersion = :d'])];
  return writeIf(
    db,
    new UpdateCommand({
      TableName: db.table,
      Key: skillKey(skillId),
      UpdateExpression: `SET ${set.join(', ')}${defaultVersion === undefined ? ' REMOVE defaultVersion' : ''}`,
      ConditionExpression: 'attribute_exists(pk) AND currentVersion = :seen',
      ExpressionAttributeValues: { ':v': current, ':k': releaseKey(current), ':seen': seen, ...(defaultVersion === undefined ? {} : { ':d': defaultVersion }) },
    }),
  );
}
