import * as z from 'zod/mini';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DomainError } from '#core/errors';
import { REPORT_REASONS, REPORT_STATES, type ReportState } from '#core/moderation';
import { type Db, parseItem, queryAll, queryOwned, writeIf } from './db.ts';
import { prefix, reporterKey, reportKey } from './keys.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * Reports of a skill: `REPORT#<skill>/USER#<reporter>`, one item per reporter, so a second open
 * report by the same user is a failed condition rather than a read-then-write race. While a
 * report is open it also sits in the GSI partition `REPORTS#open`, the admins' queue; deciding
 * it removes it from there (a sparse index: closed reports cost the queue nothing).
 */

const reportItemSchema = lazySchema(() =>
  z.object({
    skillId: z.string(),
    userId: z.string(),
    login: z.string(),
    reason: z.enum(REPORT_REASONS),
    details: z.optional(z.string()),
    createdAt: z.string(),
    status: z.enum(REPORT_STATES),
    decidedAt: z.optional(z.string()),
    /** What the report counts towards hiding the skill (core/moderation.ts), and why; reports filed before weights count nothing. */
    weight: z._default(z.number(), 0),
    basis: z._default(z.string(), 'filed before reports were weighed'),
    /** An admin dismissed an earlier report of this skill by the same reporter: this one, and any later one, weighs nothing. */
    dismissedHere: z.optional(z.boolean()),
  }),
);
export type ReportItem = z.output<typeof reportItemSchema>;

/** An account's record as a reporter: how many of its reports admins upheld and dismissed. */
const reporterRecordSchema = lazySchema(() => z.object({ upheld: z._default(z.number(), 0), dismissed: z._default(z.number(), 0) }));
export type ReporterRecord = z.output<typeof reporterRecordSchema>;

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

/** The report of `skillId` by `userId`, open or decided, if there is one. */
export async function getReport(db: Db, skillId: string, userId: string): Promise<ReportItem | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: reportKey(skillId, userId), ConsistentRead: true }));
  return Item && toReportItem(Item);
}

/** What admins decided about `userId`'s reports so far. */
export async function getReporterRecord(db: Db, userId: string): Promise<ReporterRecord> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: reporterKey(userId), ConsistentRead: true }));
  return parseItem(reporterRecordSchema, Item ?? {}, 'reporter record');
}

/** Every report of a skill, open or decided, read consistently (their weights decide a quarantine). */
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

/**
 * Closes a skill's open reports with an admin's decision (reports filed meanwhile stay open), and
 * counts it on each reporter's record: upheld and dismissed reports weigh their next ones.
 */
export async function decideReports(db: Db, skillId: string, status: Exclude<ReportState, 'open'>, now: Date): Promise<void> {
  const open = (await listReports(db, skillId)).filter((r) => r.status === 'open');
  await Promise.all(
    open.map(async (report) => {
      const decided = await writeIf(
        db,
        new UpdateCommand({
          TableName: db.table,
          Key: reportKey(skillId, report.userId),
          UpdateExpression: `SET #status = :status, decidedAt = :now${status === 'dismissed' ? ', dismissedHere = :true' : ''} REMOVE gsi1pk, gsi1sk`,
          ConditionExpression: '#status = :open AND createdAt = :created',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':status': status,
            ':now': now.toISOString(),
            ':open': 'open',
            ':created': report.createdAt,
            ...(status === 'dismissed' ? { ':true': true } : {}),
          },
        }),
      );
      // Only the write that closed the report counts it, so concurrent decisions count it once.
      if (decided) {
        await db.doc.send(
          new UpdateCommand({
            TableName: db.table,
            Key: reporterKey(report.userId),
            UpdateExpression: 'ADD #decided :one',
            ExpressionAttributeNames: { '#decided': status },
            ExpressionAttributeValues: { ':one': 1 },
          }),
        );
      }
    }),
  );
}

function toReportItem(raw: Record<string, unknown>): ReportItem {
  return parseItem(reportItemSchema, raw, 'report');
}
