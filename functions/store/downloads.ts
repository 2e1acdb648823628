import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type DailyInstalls, SOURCES, type Source, type SourceCounts, utcDay } from '#core/install-analytics';
import { type Db, queryAll } from './db.ts';

/**
 * Download counters. One partition per skill holds a bucket per UTC day (`DAY#yyyy-mm-dd`) and
 * an all-time `TOTAL`, each with a counter per source, bumped with atomic `ADD` so concurrent
 * deliveries never lose a count. Analytics read at most 30 day buckets and the total: the work
 * does not grow with the skill's age or popularity.
 */

const partition = (skillId: string) => `DL#${skillId}`;
export const downloadDayKey = (skillId: string, day: string) => ({ pk: partition(skillId), sk: `DAY#${day}` });
export const downloadTotalKey = (skillId: string) => ({ pk: partition(skillId), sk: 'TOTAL' });

/**
 * Counts one delivery of `skillId` from `source` at `now`, in its day bucket and the total. The
 * two writes are not a transaction (dynalite has none); if one fails, the other is taken back so
 * a failed delivery leaves the counts as they were.
 */
export async function recordDownload(db: Db, skillId: string, source: Source, now: Date): Promise<void> {
  const keys = [downloadDayKey(skillId, utcDay(now)), downloadTotalKey(skillId)];
  const results = await Promise.allSettled(keys.map((key) => add(db, key, source, 1)));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (!failed) return;
  await Promise.allSettled(keys.filter((_, i) => results[i]!.status === 'fulfilled').map((key) => add(db, key, source, -1)));
  throw failed.reason;
}

function add(db: Db, key: { pk: string; sk: string }, source: Source, delta: number) {
  return db.doc.send(
    new UpdateCommand({
      TableName: db.table,
      Key: key,
      UpdateExpression: 'ADD #source :delta',
      ExpressionAttributeNames: { '#source': source },
      ExpressionAttributeValues: { ':delta': delta },
    }),
  );
}

export interface DownloadCounts {
  /** Only the days that have downloads; the caller fills the gaps. */
  days: DailyInstalls[];
  totals: SourceCounts;
}

/** The day buckets from `firstDay` to `lastDay` (inclusive, `yyyy-mm-dd`) and the all-time totals. */
export async function readDownloads(db: Db, skillId: string, firstDay: string, lastDay: string): Promise<DownloadCounts> {
  const [dayItems, total] = await Promise.all([
    queryAll(db, {
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
      ExpressionAttributeValues: { ':pk': partition(skillId), ':first': `DAY#${firstDay}`, ':last': `DAY#${lastDay}` },
      ConsistentRead: true,
    }),
    db.doc.send(new GetCommand({ TableName: db.table, Key: downloadTotalKey(skillId), ConsistentRead: true })),
  ]);
  return {
    days: dayItems.map((item) => ({ date: (item.sk as string).slice('DAY#'.length), ...counts(item) })),
    totals: counts(total.Item),
  };
}

function counts(item: Record<string, unknown> | undefined): SourceCounts {
  return Object.fromEntries(SOURCES.map((s) => [s, (item?.[s] as number | undefined) ?? 0])) as SourceCounts;
}
