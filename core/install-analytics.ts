/**
 * Install analytics (docs/api.md §10): downloads are counted in one bucket per UTC day and source,
 * plus an all-time total per source. These functions turn those buckets into the analytics
 * answer; they take "now" as an argument so tests can cross day boundaries.
 */

export const SOURCES = ['cli', 'web', 'api'] as const;
export type Source = (typeof SOURCES)[number];

export type SourceCounts = Record<Source, number>;

export interface DailyInstalls extends SourceCounts {
  /** The UTC day, `yyyy-mm-dd`. */
  date: string;
}

export interface InstallAnalytics {
  total: number;
  last7d: number;
  last30d: number;
  bySource: SourceCounts;
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

/** Counts of a skill nobody has downloaded yet. */
export function zeroCounts(): SourceCounts {
  return { cli: 0, web: 0, api: 0 };
}

/** All sources together. */
export function sumCounts(counts: SourceCounts): number {
  return counts.cli + counts.web + counts.api;
}

/**
 * The analytics answer for `now` from the stored day buckets (any subset of days, in any order;
 * days outside the 30-day window are ignored) and the all-time totals. Missing days count zero.
 */
export function summariseInstalls(now: Date, buckets: DailyInstalls[], totals: SourceCounts): InstallAnalytics {
  const byDate = new Map(buckets.map((b) => [b.date, b]));
  const daily = lastUtcDays(now, ANALYTICS_DAYS).map((date) => {
    const found = byDate.get(date);
    return { date, cli: found?.cli ?? 0, web: found?.web ?? 0, api: found?.api ?? 0 };
  });
  const sumDays = (days: DailyInstalls[]) => days.reduce((n, d) => n + sumCounts(d), 0);
  return {
    total: sumCounts(totals),
    last7d: sumDays(daily.slice(-RECENT_DAYS)),
    last30d: sumDays(daily),
    bySource: { cli: totals.cli, web: totals.web, api: totals.api },
    daily,
  };
}
