import { randomInt } from 'node:crypto';
import * as z from 'zod/mini';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  CLIENTS,
  type Client,
  type DayCounts,
  type InstallCounts,
  SOURCES,
  type Source,
  addCounts,
  installsIn,
  utcDay,
  zeroCounts,
} from '#core/install-analytics';
import { type ClientFacts, visitorHashes } from '#core/install-visitor';
import { mapLimit } from '#core/map-limit';
import type { Logger } from '../platform/log.ts';
import { DamagedItemError, type Db, getItems, keyOfItem, parseItem, queryAll, scanAll } from './db.ts';
import { daySecret, markRequestCounted, recordVisitor } from './install-visitors.ts';
import { markInstalled } from './recent-installs.ts';
import { type ItemKey, installDayKey, installPartition, installPartitionOf, installTotalKey, prefix, sortPrefix } from './keys.ts';
import { findSkillIdBySlug } from './skills.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * Install counters (docs/api.md §10.2). A skill's partition holds a bucket per UTC day
 * (`DAY#yyyy-mm-dd`) and an all-time `TOTAL`, each with a counter per source, per client and
 * of distinct clients, bumped with atomic `ADD` so concurrent installs never lose a count.
 *
 * A hot skill's counters are sharded: one partition of DynamoDB takes about 1,000 writes a
 * second, and every round of counts writes two items of the skill's partition, so past
 * {@link HOT_INSTALLS_PER_SECOND} the counter spreads its writes over {@link SHARDS}
 * partitions (`DL#<id>`, `DL#<id>#1` … `#9`, chosen at random per write). The base `TOTAL`
 * records `shards`; readers sum every shard (docs/deploy.md explains the figures).
 */

/** Past this rate of installs (all processes together), a skill's counters are sharded. */
export const HOT_INSTALLS_PER_SECOND = 100;
/** How many partitions a hot skill's counters spread over. */
export const SHARDS = 10;

/** One install to count. Plain data: the local runtime posts it to its background thread. */
export interface InstallEvent {
  /** The skill; a CDN log names its slug instead (resolved when written). */
  skillId?: string;
  slug?: string;
  source: Source;
  client: Client;
  /** Address and user agent: hashed with the day's secret when written, never stored. */
  visitor: ClientFacts;
  /** When, in ms since the epoch. */
  at: number;
  /** The CDN's id of the request, so a log record delivered twice counts once. */
  requestId?: string;
}

/** What delivery and analytics need from whatever counts installs. */
export interface InstallCounter {
  /** Counts one install. */
  add(event: InstallEvent): void;
  /** Resolves once every count added so far is written, by the counter's own rounds. */
  written(): Promise<void>;
  /** Writes every count added so far now; rejects if a write fails (the count stays pending). */
  flush(): Promise<void>;
}

export interface DownloadCounterOptions {
  /** How long a count may wait to be written with the ones that follow it. */
  lingerMs: number;
  /** Storage calls made at once. */
  concurrency: number;
  /**
   * Told once when a skill's distinct installs reach `installs` (the write that crossed it is
   * the one that tells), after that write: the lookalike index of popular skills is kept this
   * way. A failure is logged, not retried; the full rebuild adds what it missed.
   */
  milestone?: { installs: number; reached: (skillId: string) => Promise<void> };
  /** {@link HOT_INSTALLS_PER_SECOND} unless a test lowers it. */
  hotInstallsPerSecond?: number;
  /** When counts are written, for the recent-installs marks (the service's clock). */
  clock?: () => Date;
}

/** An install whose skill, CDN request and client are settled, ready to be added to the counters. */
interface Pending {
  key: ItemKey;
  counts: InstallCounts;
}

/** Skills whose slugs this process looked up lately (a CDN log names slugs); `null` for no such skill. */
const SLUGS_REMEMBERED = 10_000;
/** Client hashes known to be counted already, so a repeated install costs no write. */
const VISITORS_REMEMBERED = 100_000;

/**
 * Counts installs, writing them behind the response in aggregated `ADD`s. A round first settles
 * each install: its skill (by slug, for a CDN log's), its CDN request (counted once), and whether
 * its client is new today (one conditional write, skipped for a client this process already
 * saw). Then the counts of the round are summed per counter item, so a burst of installs of one
 * skill costs two counter writes, not two per install.
 *
 * A count is held in memory until written: `flush()` waits for that, and the Lambda entries
 * flush before every invocation returns, so on AWS an install is counted before its response
 * leaves. The long-running local server answers first and writes within `lingerMs`; counts it
 * holds when killed outright are lost (a clean stop waits for them). A write that fails is kept
 * and retried with backoff, never dropped; a failed delivery adds nothing.
 */
export class DownloadCounter implements InstallCounter {
  private events: InstallEvent[] = [];
  private pending = new Map<string, Pending>();
  /** Skills whose counts were written and not yet marked as recently installed. */
  private unmarked = new Set<string>();
  private running: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  /** Installs added so far, and how many of the first of them are all written. */
  private added = 0;
  private writtenUpTo = 0;
  private waiters: { upTo: number; resolve: () => void }[] = [];
  private readonly slugs = new Map<string, string | null>();
  private readonly visitors = new Set<string>();
  private readonly secrets = new Map<string, Promise<Uint8Array>>();
  /** Shards per skill, as the base TOTAL said when this process last wrote it. */
  private readonly shards = new Map<string, number>();
  /** The last day count this process saw of each unsharded skill, to measure its rate. */
  private readonly rates = new Map<string, { at: number; day: string; installs: number }>();
  /** Sharded skills this process knows to have reached the milestone, and when it last looked. */
  private readonly milestoneChecked = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly options: DownloadCounterOptions = { lingerMs: 50, concurrency: 4 },
  ) {}

  add(event: InstallEvent): void {
    this.events.push(event);
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
    if (!this.idle) await this.round();
  }

  /** Installs added and not yet written, for tests and diagnostics. */
  get unwritten(): number {
    return this.events.length + this.pending.size;
  }

  private get idle(): boolean {
    return this.events.length === 0 && this.pending.size === 0 && this.unmarked.size === 0;
  }

  private merge(key: ItemKey, counts: InstallCounts): void {
    const id = `${key.pk}|${key.sk}`;
    const entry = this.pending.get(id) ?? { key, counts: zeroCounts() };
    addCounts(entry.counts, counts);
    this.pending.set(id, entry);
  }

  private schedule(): void {
    if (this.timer || this.running || this.idle) return;
    // After failures, back off (0.1 s doubling to 5 s) so an outage is not hammered.
    const delay = this.failures === 0 ? this.options.lingerMs : Math.min(5000, 100 * 2 ** (this.failures - 1));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.round().catch((error: unknown) => this.log.error('could not write download counts; will retry', { error: (error as Error).name }));
    }, delay);
    this.timer.unref?.();
  }

  /** Settles the installs added so far, then writes what is pending; what fails waits for the next round. */
  private round(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const events = this.events;
    const upTo = this.added;
    this.events = [];
    const run = (async () => {
      let failed: unknown;
      await mapLimit(events, this.options.concurrency, async (event) => {
        try {
          await this.settle(event);
        } catch (error) {
          this.events.push(event);
          failed ??= error;
        }
      });
      const batch = [...this.pending.values()];
      this.pending = new Map();
      await mapLimit(batch, this.options.concurrency, async ({ key, counts }) => {
        try {
          await this.write(key, counts);
          this.unmarked.add(installPartitionOf(key.pk).skillId);
        } catch (error) {
          this.merge(key, counts);
          failed ??= error;
        }
      });
      // After the counts, so a refresh that reads the mark reads them too.
      const marking = [...this.unmarked];
      this.unmarked = new Set();
      try {
        await markInstalled(this.db, marking, (this.options.clock?.() ?? new Date()).getTime());
      } catch (error) {
        for (const id of marking) this.unmarked.add(id);
        failed ??= error;
      }
      this.failures = failed ? this.failures + 1 : 0;
      if (failed) throw failed;
      // Rounds run one at a time and whatever fails goes into the next one, so a round that
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

  /**
   * Settles one install and adds it to the pending counts. Each step records its outcome on the
   * event, so an install retried after a failure repeats no step that succeeded (a CDN request
   * marked counted is not marked again, which would drop it).
   */
  private async settle(event: InstallEvent & { distinct?: boolean }): Promise<void> {
    event.skillId ??= (await this.skillIdOf(event.slug)) ?? undefined;
    if (event.skillId === undefined) return; // a slug that names no skill: nobody's install
    const at = new Date(event.at);
    if (event.requestId !== undefined) {
      if (!(await markRequestCounted(this.db, event.requestId, at))) return;
      event.requestId = undefined;
    }
    const day = utcDay(at);
    event.distinct ??= await this.firstVisit(event.skillId, day, event.visitor, at);
    const counts = zeroCounts();
    counts.sources[event.source] = 1;
    counts.clients[event.client] = 1;
    counts.distinct = event.distinct ? 1 : 0;
    const shards = this.shards.get(event.skillId) ?? 1;
    const shard = shards > 1 ? randomInt(shards) : 0;
    this.merge(installDayKey(event.skillId, day, shard), counts);
    this.merge(installTotalKey(event.skillId, shard), counts);
  }

  private async skillIdOf(slug: string | undefined): Promise<string | null> {
    if (slug === undefined) return null;
    const known = this.slugs.get(slug);
    if (known !== undefined) return known;
    const id = (await findSkillIdBySlug(this.db, slug)) ?? null;
    if (this.slugs.size >= SLUGS_REMEMBERED) this.slugs.clear();
    this.slugs.set(slug, id);
    return id;
  }

  /** Whether this client is new to the skill today (see core/install-visitor.ts). */
  private async firstVisit(skillId: string, day: string, client: ClientFacts, at: Date): Promise<boolean> {
    const hashes = visitorHashes(await this.secretOf(day, at), client);
    const id = `${skillId}|${day}|${hashes.network}|${hashes.agent}`;
    if (this.visitors.has(id)) return false;
    const first = await recordVisitor(this.db, skillId, day, hashes, at);
    if (this.visitors.size >= VISITORS_REMEMBERED) this.visitors.clear();
    this.visitors.add(id);
    return first;
  }

  private secretOf(day: string, at: Date): Promise<Uint8Array> {
    let secret = this.secrets.get(day);
    if (!secret) {
      secret = daySecret(this.db, day, at);
      secret.catch(() => this.secrets.delete(day));
      // Yesterday's is still needed for installs counted just after midnight; older ones are not.
      for (const old of [...this.secrets.keys()].sort().slice(0, -1)) this.secrets.delete(old);
      this.secrets.set(day, secret);
    }
    return secret;
  }

  /** Adds `counts` to one counter item, then learns what the answer says of the skill. */
  private async write(key: ItemKey, counts: InstallCounts): Promise<void> {
    const { skillId, shard } = installPartitionOf(key.pk);
    const total = key.sk === 'TOTAL';
    const after = await addToItem(this.db, key, counts, total ? 'ALL_NEW' : shard === 0 ? 'UPDATED_NEW' : 'NONE');
    if (!after) return;
    if (total) {
      if (shard === 0) this.shards.set(skillId, typeof after.shards === 'number' ? after.shards : 1);
      await this.checkMilestone(skillId, shard, after, counts.distinct);
    } else if ((this.shards.get(skillId) ?? 1) < SHARDS) {
      await this.measureRate(skillId, key.sk.slice(sortPrefix.day.length), installsIn(countsOf(after)));
    }
  }

  /**
   * Measures a skill's rate of installs from its day bucket, which counts every process's: two
   * writes of this process at least a second apart tell how many installs all made in between.
   */
  private async measureRate(skillId: string, day: string, installs: number): Promise<void> {
    const now = Date.now();
    const last = this.rates.get(skillId);
    if (last && last.day === day && now - last.at < 1000) return;
    this.rates.set(skillId, { at: now, day, installs });
    if (!last || last.day !== day || ((installs - last.installs) * 1000) / (now - last.at) < (this.options.hotInstallsPerSecond ?? HOT_INSTALLS_PER_SECOND))
      return;
    await shardCounters(this.db, skillId, SHARDS);
    this.shards.set(skillId, SHARDS);
    this.log.info('install counters sharded', { skillId, shards: SHARDS });
  }

  /** Tells the milestone's listener when the skill's distinct installs reach it. */
  private async checkMilestone(skillId: string, shard: number, after: Record<string, unknown>, added: number): Promise<void> {
    const milestone = this.options.milestone;
    if (!milestone || added === 0) return;
    const sharded = shard > 0 || (this.shards.get(skillId) ?? 1) > 1;
    if (!sharded) {
      const distinct = countsOf(after).distinct;
      if (distinct - added >= milestone.installs || distinct < milestone.installs) return;
    } else {
      // A shard knows only its part: sum them, at most once a minute per skill, until it is reached.
      const last = this.milestoneChecked.get(skillId);
      if (last === Infinity || (last !== undefined && Date.now() - last < 60_000)) return;
      this.milestoneChecked.set(skillId, Date.now());
      if (((await installTotals(this.db, [skillId])).get(skillId)?.distinct ?? 0) < milestone.installs) return;
      this.milestoneChecked.set(skillId, Infinity);
    }
    try {
      await milestone.reached(skillId);
    } catch (error) {
      this.log.error('could not record that a skill reached an install milestone', { skillId, error: (error as Error).name });
    }
  }
}

/** The attribute each figure of a counter item is kept under. */
const FIELDS: { name: string; get: (c: InstallCounts) => number }[] = [
  ...SOURCES.map((s) => ({ name: s, get: (c: InstallCounts) => c.sources[s] })),
  ...CLIENTS.map((k) => ({ name: k, get: (c: InstallCounts) => c.clients[k] })),
  { name: 'distinct', get: (c: InstallCounts) => c.distinct },
];

/** Adds the counts to one counter item; returns what DynamoDB gave back (`NONE`: nothing). */
async function addToItem(
  db: Db,
  key: ItemKey,
  counts: InstallCounts,
  returnValues: 'ALL_NEW' | 'UPDATED_NEW' | 'NONE',
): Promise<Record<string, unknown> | undefined> {
  const fields = FIELDS.filter((f) => f.get(counts) > 0);
  if (fields.length === 0) return undefined;
  const { Attributes } = await db.doc.send(
    new UpdateCommand({
      TableName: db.table,
      Key: key,
      UpdateExpression: `ADD ${fields.map((f) => `#${f.name} :${f.name}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(fields.map((f) => [`#${f.name}`, f.name])),
      ExpressionAttributeValues: Object.fromEntries(fields.map((f) => [`:${f.name}`, f.get(counts)])),
      ReturnValues: returnValues,
    }),
  );
  return Attributes;
}

/** Records on the base TOTAL that the skill's counters spread over `shards` partitions (never fewer). */
async function shardCounters(db: Db, skillId: string, shards: number): Promise<void> {
  await db.doc.send(
    new UpdateCommand({
      TableName: db.table,
      Key: installTotalKey(skillId),
      UpdateExpression: 'SET shards = if_not_exists(shards, :one)',
      ExpressionAttributeValues: { ':one': 1 },
    }),
  );
  await db.doc
    .send(
      new UpdateCommand({
        TableName: db.table,
        Key: installTotalKey(skillId),
        UpdateExpression: 'SET shards = :n',
        ConditionExpression: 'shards < :n',
        ExpressionAttributeValues: { ':n': shards },
      }),
    )
    .catch((error: unknown) => {
      if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    });
}

/** A counter item's figures (0 for one never counted): a day bucket or a TOTAL. */
const countsSchema = lazySchema(
  () =>
    z.object({
      ...Object.fromEntries(FIELDS.map((f) => [f.name, z._default(z.number(), 0)])),
      shards: z.optional(z.number()),
    }) as unknown as z.ZodMiniType<Record<string, number>>,
);

/** A counter item's figures; throws {@link DamagedItemError} for one that is not numbers where figures go. */
export function countsOf(item: Record<string, unknown> | undefined): InstallCounts {
  const raw = parseItem(countsSchema, item ?? {}, 'install counter');
  const counts = zeroCounts();
  for (const s of SOURCES) counts.sources[s] = raw[s] ?? 0;
  for (const k of CLIENTS) counts.clients[k] = raw[k] ?? 0;
  counts.distinct = raw.distinct ?? 0;
  return counts;
}

/** How many partitions a skill's counters spread over, from its base TOTAL item. */
function shardsOf(item: Record<string, unknown> | undefined): number {
  const shards = item?.shards;
  return typeof shards === 'number' && Number.isInteger(shards) && shards > 1 ? Math.min(shards, 100) : 1;
}

export interface DownloadCounts {
  /** Only the days that have installs (a day once per shard that counted it); the caller fills the gaps. */
  days: DayCounts[];
  totals: InstallCounts;
}

/** The day buckets from `firstDay` to `lastDay` (inclusive, `yyyy-mm-dd`) and the all-time totals, every shard summed. */
export async function readDownloads(db: Db, skillId: string, firstDay: string, lastDay: string): Promise<DownloadCounts> {
  const found: DownloadCounts = { days: [], totals: zeroCounts() };
  const readShard = async (shard: number) => {
    // One query per partition: the days of the window sort before TOTAL, and nothing else is between.
    const items = await queryAll(db, {
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :total',
      ExpressionAttributeValues: { ':pk': installPartition(skillId, shard), ':first': sortPrefix.day + firstDay, ':total': 'TOTAL' },
      ConsistentRead: true,
    });
    let shards = 1;
    for (const item of items) {
      const sk = keyOfItem(item).sk;
      if (sk === 'TOTAL') {
        addCounts(found.totals, countsOf(item));
        if (shard === 0) shards = shardsOf(item);
      } else {
        const date = sk.slice(sortPrefix.day.length);
        if (date <= lastDay) found.days.push({ date, ...countsOf(item) });
      }
    }
    return shards;
  };
  const shards = await readShard(0);
  await mapLimit(
    Array.from({ length: shards - 1 }, (_, i) => i + 1),
    8,
    readShard,
  );
  return found;
}

/** What {@link scanDownloads} found: the counts by skill id, and the skills with a counter it could not read. */
export interface ScannedDownloads {
  counts: Map<string, DownloadCounts>;
  /** Skills left out of `counts`: one of their counter items is damaged (not numbers where counts go). */
  damaged: string[];
}

/**
 * Every skill's day buckets from `firstDay` (`yyyy-mm-dd`) on and its all-time totals, every
 * shard summed, by skill id, in one pass over the table (parallel segments), for the public
 * counts of every skill at once: a query per skill would cost a round trip per skill, and most
 * skills have no counters. A damaged counter leaves its skill out instead of failing the pass
 * for every other skill.
 */
export async function scanDownloads(db: Db, firstDay: string, segments = 4): Promise<ScannedDownloads> {
  const bySkill = new Map<string, DownloadCounts>();
  const damaged = new Set<string>();
  await scanAll(
    db,
    {
      FilterExpression: 'begins_with(pk, :installs) AND (sk = :total OR sk >= :first)',
      ExpressionAttributeValues: { ':installs': prefix.installs, ':total': 'TOTAL', ':first': sortPrefix.day + firstDay },
    },
    (item) => {
      const { skillId } = installPartitionOf(String(item.pk));
      const sk = String(item.sk);
      let found: InstallCounts;
      try {
        found = countsOf(item);
      } catch (error) {
        if (!(error instanceof DamagedItemError)) throw error;
        damaged.add(skillId);
        return;
      }
      const entry = bySkill.get(skillId) ?? bySkill.set(skillId, { days: [], totals: zeroCounts() }).get(skillId)!;
      if (sk === 'TOTAL') addCounts(entry.totals, found);
      else entry.days.push({ date: sk.slice(sortPrefix.day.length), ...found });
    },
    segments,
  );
  for (const skillId of damaged) bySkill.delete(skillId);
  return { counts: bySkill, damaged: [...damaged] };
}

/** Each skill's all-time counts, every shard summed (zeros for one never installed): one batched read, two for hot skills. */
export async function installTotals(db: Db, skillIds: readonly string[]): Promise<Map<string, InstallCounts>> {
  const totals = new Map(skillIds.map((id) => [id, zeroCounts()]));
  const shardKeys: ItemKey[] = [];
  for (const item of await getItems(
    db,
    skillIds.map((id) => installTotalKey(id)),
  )) {
    const { skillId } = installPartitionOf(keyOfItem(item).pk);
    addCounts(totals.get(skillId)!, countsOf(item));
    for (let shard = 1; shard < shardsOf(item); shard++) shardKeys.push(installTotalKey(skillId, shard));
  }
  for (const item of await getItems(db, shardKeys)) addCounts(totals.get(installPartitionOf(keyOfItem(item).pk).skillId)!, countsOf(item));
  return totals;
}

/** Each skill's distinct installs of all time (see {@link installTotals}): the figure that ranks skills and is public. */
export async function distinctInstallTotals(db: Db, skillIds: readonly string[]): Promise<Map<string, number>> {
  return new Map([...(await installTotals(db, skillIds))].map(([id, counts]) => [id, counts.distinct]));
}
