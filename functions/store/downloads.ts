import * as z from 'zod/mini';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type DailyInstalls, SOURCES, type Source, type SourceCounts, utcDay } from '#core/install-analytics';
import { mapLimit } from '#core/map-limit';
import type { Logger } from '../platform/log.ts';
import { DamagedItemError, type Db, getItems, keyOfItem, parseItem, queryAll, scanAll } from './db.ts';
import { installDayKey, prefix, sortPrefix } from './keys.ts';

/**
 * Download counters. One partition per skill holds a bucket per UTC day (`DAY#yyyy-mm-dd`) and
 * an all-time `TOTAL`, each with a counter per source, bumped with atomic `ADD` so concurrent
 * deliveries never lose a count. Analytics read at most 30 day buckets and the total: the work
 * does not grow with the skill's age or popularity.
 */

const partition = (skillId: string) => prefix.installs + skillId;
export const downloadTotalKey = (skillId: string) => ({ pk: partition(skillId), sk: 'TOTAL' });

type ItemKey = ReturnType<typeof downloadTotalKey>;

/** What delivery and analytics need from whatever counts installs. */
export interface InstallCounter {
  /** Counts one delivery of `skillId` from `source` at `now`. */
  add(skillId: string, source: Source, now: Date): void;
  /** Resolves once every count added so far is written, by the counter's own rounds. */
  written(): Promise<void>;
  /** Writes every count added so far now; rejects if a write fails (the count stays pending). */
  flush(): Promise<void>;
}

export interface DownloadCounterOptions {
  /** How long a count may wait to be written with the ones that follow it. */
  lingerMs: number;
  /** Counter items written at once. */
  concurrency: number;
  /**
   * Told once when a skill's all-time total crosses `installs` (the write that crossed it is the
   * one that tells), after that write: the lookalike index of popular skills is kept this way.
   * A failure is logged, not retried; the full rebuild adds what it missed.
   */
  milestone?: { installs: number; reached: (skillId: string) => Promise<void> };
}

/**
 * Counts deliveries, writing them behind the response in aggregated `ADD`s: the counts of one
 * round are summed per counter item (a skill's day bucket and its total), so a burst of installs
 * of one skill costs two writes, not two per install. Profiling free delivery put two SDK calls
 * per request (≈ 1.5 ms of client CPU each on this machine) at the top; this is what lets the
 * counted delivery keep up with a static tarball server.
 *
 * A count is held in memory until written: `flush()` waits for that, and the Lambda entry
 * flushes before every invocation returns, so on AWS a delivery is counted before its response
 * leaves. The long-running local server answers first and writes within `lingerMs`; counts it
 * holds when killed outright are lost (a clean stop waits for them). A write that fails is kept and
 * retried with backoff, never dropped; a failed delivery adds nothing.
 */
export class DownloadCounter implements InstallCounter {
  private pending = new Map<string, { key: ItemKey; counts: Partial<SourceCounts> }>();
  private running: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  /** Deliveries counted so far, and how many of the first of them are all written. */
  private added = 0;
  private writtenUpTo = 0;
  private waiters: { upTo: number; resolve: () => void }[] = [];

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly options: DownloadCounterOptions = { lingerMs: 50, concurrency: 4 },
  ) {}

  /** Counts one delivery of `skillId` from `source` at `now`, in its day bucket and the total. */
  add(skillId: string, source: Source, now: Date): void {
    for (const key of [installDayKey(skillId, utcDay(now)), downloadTotalKey(skillId)]) this.merge(key, { [source]: 1 });
    this.added += 1;
    this.schedule();
  }

  /**
   * Resolves once every count added so far has been written by the rounds this counter runs on
   * its own (within `lingerMs` unless writes fail); it never writes itself. The local runtime's
   * analytics read waits for this, so an author reads their own installs, while the writes stay
   * with the delivery that made them.
   */
  written(): Promise<void> {
    if (this.writtenUpTo >= this.added) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ upTo: this.added, resolve }));
  }

  /** Resolves once every count added so far is written; rejects if a write fails (it stays pending). */
  async flush(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
    if (this.pending.size > 0) await this.round();
  }

  /** Counts added and not yet written, for tests and diagnostics. */
  get unwritten(): number {
    return this.pending.size;
  }

  private merge(key: ItemKey, counts: Partial<SourceCounts>): void {
    const id = `${key.pk}|${key.sk}`;
    const entry = this.pending.get(id) ?? { key, counts: {} };
    for (const source of SOURCES) if (counts[source]) entry.counts[source] = (entry.counts[source] ?? 0) + counts[source];
    this.pending.set(id, entry);
  }

  private schedule(): void {
    if (this.timer || this.running || this.pending.size === 0) return;
    // After failures, back off (0.1 s doubling to 5 s) so an outage is not hammered.
    const delay = this.failures === 0 ? this.options.lingerMs : Math.min(5000, 100 * 2 ** (this.failures - 1));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.round().catch((error: unknown) => this.log.error('could not write download counts; will retry', { error: (error as Error).name }));
    }, delay);
    this.timer.unref?.();
  }

  /** Writes what is pending now, one item at a time per lane; failed items go back to pending. */
  private round(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.pending.values()];
    const upTo = this.added;
    this.pending = new Map();
    const run = (async () => {
      let failed: unknown;
      await mapLimit(batch, this.options.concurrency, async ({ key, counts }) => {
        let total: number | undefined;
        try {
          total = await add(this.db, key, counts);
        } catch (error) {
          this.merge(key, counts);
          failed ??= error;
          return;
        }
        if (total !== undefined) await this.checkMilestone(key, total, total - sum(counts));
      });
      this.failures = failed ? this.failures + 1 : 0;
      if (failed) throw failed;
      // Rounds run one at a time and a failed item goes into the next one, so a round that
      // wrote everything it took completes every count added before it started.
      this.writtenUpTo = upTo;
      const ready = this.waiters.filter((w) => w.upTo <= upTo);
      this.waiters = this.waiters.filter((w) => w.upTo > upTo);
      for (const waiter of ready) waiter.resolve();
    })();
    this.running = run.finally(() => {
      this.running = undefined;
      this.schedule();
    });
    return this.running;
  }

  /** Tells the milestone's listener when this write took a total from below it to it or above. */
  private async checkMilestone(key: ItemKey, after: number, before: number): Promise<void> {
    const milestone = this.options.milestone;
    if (!milestone || key.sk !== 'TOTAL' || before >= milestone.installs || after < milestone.installs) return;
    const skillId = key.pk.slice(prefix.installs.length);
    try {
      await milestone.reached(skillId);
    } catch (error) {
      this.log.error('could not record that a skill reached an install milestone', { skillId, error: (error as Error).name });
    }
  }
}

/** Adds the counts; for a skill's total, returns the total afterwards. */
async function add(db: Db, key: ItemKey, counts: Partial<SourceCounts>): Promise<number | undefined> {
  const sources = SOURCES.filter((s) => counts[s]);
  const total = key.sk === 'TOTAL';
  const { Attributes } = await db.doc.send(
    new UpdateCommand({
      TableName: db.table,
      Key: key,
      UpdateExpression: `ADD ${sources.map((s) => `#${s} :${s}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(sources.map((s) => [`#${s}`, s])),
      ExpressionAttributeValues: Object.fromEntries(sources.map((s) => [`:${s}`, counts[s]])),
      ...(total ? { ReturnValues: 'ALL_NEW' as const } : {}),
    }),
  );
  return total ? installsOf(Attributes) : undefined;
}

const sum = (counts: Partial<SourceCounts>) => SOURCES.reduce((n, s) => n + (counts[s] ?? 0), 0);

/** A skill's all-time installs from its TOTAL item (every source together). */
export function installsOf(item: Record<string, unknown> | undefined): number {
  return sum(counts(item));
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
      ExpressionAttributeValues: { ':pk': partition(skillId), ':first': sortPrefix.day + firstDay, ':last': sortPrefix.day + lastDay },
      ConsistentRead: true,
    }),
    db.doc.send(new GetCommand({ TableName: db.table, Key: downloadTotalKey(skillId), ConsistentRead: true })),
  ]);
  return {
    days: dayItems.map((item) => ({ date: keyOfItem(item).sk.slice(sortPrefix.day.length), ...counts(item) })),
    totals: counts(total.Item),
  };
}

/** What {@link scanDownloads} found: the counts by skill id, and the skills with a counter it could not read. */
export interface ScannedDownloads {
  counts: Map<string, DownloadCounts>;
  /** Skills left out of `counts`: one of their counter items is damaged (not numbers where counts go). */
  damaged: string[];
}

/**
 * Every skill's day buckets from `firstDay` (`yyyy-mm-dd`) on and its all-time totals, by skill
 * id, in one pass over the table (parallel segments), for the public counts of every skill at
 * once: a query per skill would cost a round trip per skill, and most skills have no counters.
 * A damaged counter leaves its skill out instead of failing the pass for every other skill.
 */
export async function scanDownloads(db: Db, firstDay: string, segments = 4): Promise<ScannedDownloads> {
  const bySkill = new Map<string, DownloadCounts>();
  const damaged = new Set<string>();
  const of = (skillId: string) => {
    const found = bySkill.get(skillId);
    if (found) return found;
    const entry: DownloadCounts = { days: [], totals: counts(undefined) };
    bySkill.set(skillId, entry);
    return entry;
  };
  await scanAll(
    db,
    {
      FilterExpression: 'begins_with(pk, :installs) AND (sk = :total OR sk >= :first)',
      ProjectionExpression: 'pk, sk, #cli, #web, #api',
      ExpressionAttributeNames: { '#cli': 'cli', '#web': 'web', '#api': 'api' },
      ExpressionAttributeValues: { ':installs': prefix.installs, ':total': 'TOTAL', ':first': sortPrefix.day + firstDay },
    },
    (item) => {
      const skillId = String(item.pk).slice(prefix.installs.length);
      const sk = String(item.sk);
      let found: SourceCounts;
      try {
        found = counts(item);
      } catch (error) {
        if (!(error instanceof DamagedItemError)) throw error;
        damaged.add(skillId);
        return;
      }
      const entry = of(skillId);
      if (sk === 'TOTAL') entry.totals = found;
      else entry.days.push({ date: sk.slice(sortPrefix.day.length), ...found });
    },
    segments,
  );
  for (const skillId of damaged) bySkill.delete(skillId);
  return { counts: bySkill, damaged: [...damaged] };
}

/** A counter item's counts by source (0 for a source never counted): a day bucket or a TOTAL. */
const countsSchema = z.object(Object.fromEntries(SOURCES.map((s) => [s, z._default(z.number(), 0)])) as Record<Source, z.ZodMiniDefault<z.ZodMiniNumber>>);

function counts(item: Record<string, unknown> | undefined): SourceCounts {
  return parseItem(countsSchema, item ?? {}, 'install counter');
}

/** Each skill's installs since it was published, all sources, from its `TOTAL` (0 for one never installed). */
export async function installTotals(db: Db, skillIds: readonly string[]): Promise<Map<string, number>> {
  const items = await getItems(db, skillIds.map(downloadTotalKey));
  const totals = new Map(skillIds.map((id) => [id, 0]));
  for (const item of items) {
    const all = counts(item);
    totals.set(
      keyOfItem(item).pk.slice(prefix.installs.length),
      SOURCES.reduce((sum, source) => sum + all[source], 0),
    );
  }
  return totals;
}
