import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ScanResult } from '#core/scan/finding';
import { type Db, isConditionFailed, writeIf } from './db.ts';
import { skillKey, versionKey } from './keys.ts';
import { type SkillItem, toSkillItem } from './skills.ts';

/**
 * What moderation changes on a skill's items: the quarantine on its META (the rebuild then takes
 * it out of every listing), and a version's stored scan, which a rescan with newer rules rewrites.
 * Both are conditional updates of single attributes, so they never race a publish's writes.
 */

export interface Quarantine {
  reason: string;
  since: string;
  /** `reports`, `rescan`, or the login of the admin who decided. */
  by: string;
}

/** Quarantines a skill; the skill afterwards, or undefined when it was quarantined already (or does not exist). */
export async function quarantineSkill(db: Db, skillId: string, quarantine: Quarantine): Promise<SkillItem | undefined> {
  try {
    const { Attributes } = await db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: skillKey(skillId),
        UpdateExpression: 'SET quarantine = :q',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(quarantine)',
        ExpressionAttributeValues: { ':q': quarantine },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toSkillItem(Attributes!);
  } catch (error) {
    if (isConditionFailed(error)) return undefined;
    throw error;
  }
}

/** Lifts a skill's quarantine; false when it was not quarantined. */
export function releaseSkill(db: Db, skillId: string): Promise<boolean> {
  return writeIf(
    db,
    new UpdateCommand({
      TableName: db.table,
      Key: skillKey(skillId),
      UpdateExpression: 'REMOVE quarantine',
      ConditionExpression: 'attribute_exists(quarantine)',
    }),
  );
}

/** Stores a version's new scan and when it ran: the one change a published version ever sees. */
export async function setVersionScan(db: Db, skillId: string, version: string, scan: ScanResult, scannedAt: string): Promise<void> {
  await db.doc.send(
    new UpdateCommand({
      TableName: db.table,
      Key: versionKey(skillId, version),
      // SCAN is a reserved word of DynamoDB's expressions.
      UpdateExpression: 'SET #scan = :scan, scannedAt = :at',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#scan': 'scan' },
      ExpressionAttributeValues: { ':scan': scan, ':at': scannedAt },
    }),
  );
}
