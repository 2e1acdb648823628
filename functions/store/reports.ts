import * as z from 'zod/mini';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DomainError } from '#core/errors';
import { REPORT_REASONS, REPORT_STATES, type ReportState } from '#core/moderation';
import { type Db, parseItem, queryAll, queryOwned, writeIf } from './db.ts';
import { prefix, reportKey } from './keys.ts';

/**
 * Reports of a skill: `REPORT#<skill>/USER#<reporter>`, one item per reporter, so a second open
 * report by the same user is a failed condition rather than a read-then-write race. While a
 * report is open it also sits in the GSI partition `REPORTS#open`, the admins' queue; deciding
 * it removes it from there (a sparse index: closed reports cost the queue nothing).
 */

const reportItemSchema = z.object({
  skillId: z.string(),
  userId: z.string(),
  login: z.string(),
  reason: z.enum(REPORT_REASONS),
  details: z.optional(z.string()),
  createdAt: z.string(),
  status: z.enum(REPORT_STATES),
  decidedAt: z.optional(z.string()),
});
export type ReportItem = z.output<typeof reportItemSchema>;

const openSortKey = (report: Pick<ReportItem, 'createdAt' | 'skillId' | 'userId'>) => `${report.createdAt}#${report.skillId}#${report.userId}`;

/**
 * Files an open report. A closed report by the same user is replaced (they may report again
 * after an admin decided); an open one is `409 already_reported`.
 */
export async function putReport(db: Db, report: ReportItem): Promise<void> {
  const put = new PutCommand({
    TableName: db.table,
    Item: { ...reportKey(report.skillId, report.userId), ...report, gsi1pk: prefix.openReports, gsi1sk: openSortKey(report) },
    ConditionExpression: 'attribute_not_exists(pk) OR #status <> :open',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':open': 'open' },
  });
  if (!(await writeIf(db, put))) throw new DomainError('already_reported', 'You have already reported this skill; an admin will look at it');
}

/** Every report of a skill, open or decided, read consistently (a count decides a quarantine). */
export async function listReports(db: Db, skillId: string): Promise<ReportItem[]> {
  const items = await queryAll(db, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': reportKey(skillId, '').pk },
    ConsistentRead: true,
  });
  return items.map(toReportItem);
}

/** Every open report, newest first: the admins' queue (the GSI is eventually consistent). */
export async function listOpenReports(db: Db): Promise<ReportItem[]> {
  return (await queryOwned(db, prefix.openReports)).map(toReportItem).reverse();
}

/** Closes a skill's open reports with an admin's decision; reports filed meanwhile stay open. */
export async function decideReports(db: Db, skillId: string, status: Exclude<ReportState, 'open'>, now: Date): Promise<void> {
  const open = (await listReports(db, skillId)).filter((r) => r.status === 'open');
  await Promise.all(
    open.map((report) =>
      writeIf(
        db,
        new UpdateCommand({
          TableName: db.table,
          Key: reportKey(skillId, report.userId),
          UpdateExpression: 'SET #status = :status, decidedAt = :now REMOVE gsi1pk, gsi1sk',
          ConditionExpression: '#status = :open AND createdAt = :created',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':status': status, ':now': now.toISOString(), ':open': 'open', ':created': report.createdAt },
        }),
      ),
    ),
  );
}

function toReportItem(raw: Record<string, unknown>): ReportItem {
  return parseItem(reportItemSchema, raw, 'report');
}
