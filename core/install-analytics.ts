/**
 * Install analytics (docs/api.md §10). Every counter item (a skill's bucket per UTC day, and its
 * all-time total) holds three kinds of figure: installs by source (`cli`, `web`, `api`: what the
 * caller said), installs by client (which program made them, told from the request), and
 * `distinct`: installs by distinct clients, at most one per client per skill per UTC day (see
 * core/install-visitor.ts). Every install counts in the first two; `distinct` is the figure
 * that resists inflation, and it is the one that ranks, is public, and decides the imitation
 * rule. These functions turn the buckets into the analytics answer; they take "now" as an
 * argument so tests can cross day boundaries.
 */

export const SOURCES = ['cli', 'web', 'api'] as const;
export type Source = (typeof SOURCES)[number];
export type SourceCounts = Record<Source, number>;

/** The programs installs are told apart by: our CLI, the `skills` CLI, ClawHub's CLIs, anything else. */
export const CLIENTS = ['skillpress', 'skills', 'clawhub', 'other'] as const;
export type Client = (typeof CLIENTS)[number];
export type ClientCounts = Record<Client, number>;

/** What one counter item holds (and what a sum of items is). */
export interface InstallCounts {
  sources: SourceCounts;
  clients: ClientCounts;
  /** Installs by distinct clients: one per client per skill per UTC day. */
  distinct: number;
}

export interface DayCounts extends InstallCounts {
  /** The UTC day, `yyyy-mm-dd`. */
  date: string;
}

export interface DailyInstalls extends SourceCounts {
  date: string;
  distinct: number;
}

export interface InstallAnalytics {
  total: number;
  last7d: number;
  last30d: number;
  bySource: SourceCounts;
  byClient: ClientCounts;
  /** The same periods counted by distinct clients (what the public counts and the ranking use). */
  distinct: { total: number; last7d: number; last30d: number };
  daily: DailyInstalls[];
}

/** Days in the `daily` series and in `last30d`. */
export const ANALYTICS_DAYS = 30;
/** Days in `last7d`: today plus the 6 previous UTC days. */
export const RECENT_DAYS = 7;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The UTC calendar day of `at` as `yyyy-mm-dd`, the key of its download bucket. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The `count` UTC days ending with the day of `now`, oldest first. */
export function lastUtcDays(now: Date, count: number): string[] {
  // UTC has no daylight saving, so whole days are exactly DAY_MS apart.
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: count }, (_, i) => utcDay(new Date(today - (count - 1 - i) * DAY_MS)));
}

/** Counts of a skill nobody has installed yet. */
export function zeroCounts(): InstallCounts {
  return { sources: { cli: 0, web: 0, api: 0 }, clients: { skillpress: 0, skills: 0, clawhub: 0, other: 0 }, distinct: 0 };
}

/** Every install in `counts` (all sources together). */
export function installsIn(counts: InstallCounts): number {
  return counts.sources.cli + counts.sources.web + counts.sources.api;
}

/** `into` plus `more`, in place (shards of one counter, or days of a period). */
export function addCounts(into: InstallCounts, more: InstallCounts): InstallCounts {
  for (const s of SOURCES) into.sources[s] += more.sources[s];
  for (const c of CLIENTS) into.clients[c] += more.clients[c];
  into.distinct += more.distinct;
  return into;
}

/**
 * The analytics answer for `now` from the stored day buckets (any subset of days, in any order,
 * a day possibly in several buckets, as a sharded counter keeps it; days outside the 30-day window
 * are ignored) and the all-time totals. Missing days count zero.
 */
export function summariseInstalls(now: Date, buckets: DayCounts[], totals: InstallCounts): InstallAnalytics {
  const byDate = new Map<string, InstallCounts>();
  for (const bucket of buckets) addCounts(byDate.get(bucket.date) ?? byDate.set(bucket.date, zeroCounts()).get(bucket.date)!, bucket);
  const days = lastUtcDays(now, ANALYTICS_DAYS).map((date) => ({ date, ...(byDate.get(date) ?? zeroCounts()) }));
  const sum = (of: (c: InstallCounts) => number, from: DayCounts[]) => from.reduce((n, d) => n + of(d), 0);
  const recent = days.slice(-RECENT_DAYS);
  return {
    total: installsIn(totals),
    last7d: sum(installsIn, recent),
    last30d: sum(installsIn, days),
    bySource: { ...totals.sources },
    byClient: { ...totals.clients },
    distinct: { total: totals.distinct, last7d: sum((d) => d.distinct, recent), last30d: sum((d) => d.distinct, days) },
    daily: days.map((d) => ({ date: d.date, ...d.sources, distinct: d.distinct })),
  };
}

/** What the request says about the program that made it, to tell {@link Client}s apart. */
export type InstallChannel = 'deliver' | 'clawhub' | 'discovery';

/**
 * Which program made an install: the channel decides most of it (ClawHub's download endpoint
 * is used by ClawHub's CLIs alone; the discovery index by `skills` and its kin), the user agent
 * the rest. `skills` fetches with Node's built-in `fetch`, whose user agent is `node`; our CLI
 * sends `skillpress-cli/<version>`.
 */
export function clientOf(channel: InstallChannel, userAgent: string | undefined): Client {
  const agent = (userAgent ?? '').trim().toLowerCase();
  if (channel === 'clawhub') return 'clawhub';
  if (agent.startsWith('skillpress-cli/')) return 'skillpress';
  if (channel === 'discovery' && isSkillsCliAgent(agent)) return 'skills';
  return 'other';
}

/**
 * Whether a user agent is the one the `skills` CLI sends: it fetches with Node's built-in `fetch`,
 * whose user agent is `node` (`undici` in older releases); a later `skills` may name itself.
 */
export function isSkillsCliAgent(userAgent: string | undefined): boolean {
  const agent = (userAgent ?? '').trim().toLowerCase();
  return agent === 'node' || agent.startsWith('skills/') || agent.startsWith('undici');
}
