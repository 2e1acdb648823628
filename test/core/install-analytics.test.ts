import { describe, expect, it } from 'vitest';
import { clientOf, type DayCounts, type InstallCounts, lastUtcDays, summariseInstalls, utcDay, zeroCounts } from '#core/install-analytics';

const counts = (cli = 0, web = 0, api = 0, distinct = 0): InstallCounts => ({
  sources: { cli, web, api },
  clients: { skillpress: cli, skills: 0, clawhub: 0, other: web + api },
  distinct,
});
const day = (date: string, cli = 0, web = 0, api = 0, distinct = 0): DayCounts => ({ date, ...counts(cli, web, api, distinct) });
const daily = (date: string, cli = 0, web = 0, api = 0, distinct = 0) => ({ date, cli, web, api, distinct });

describe('UTC days', () => {
  it('takes the calendar day in UTC, not in local time', () => {
    expect(utcDay(new Date('2026-03-01T23:59:59.999Z'))).toBe('2026-03-01');
    expect(utcDay(new Date('2026-03-02T00:00:00.000Z'))).toBe('2026-03-02');
    expect(utcDay(new Date('2026-03-01T23:30:00-02:00'))).toBe('2026-03-02');
  });

  it('lists the last N days oldest first, across month, leap-day and year ends', () => {
    expect(lastUtcDays(new Date('2028-03-01T05:00:00Z'), 3)).toEqual(['2028-02-28', '2028-02-29', '2028-03-01']);
    expect(lastUtcDays(new Date('2027-01-01T00:00:00Z'), 2)).toEqual(['2026-12-31', '2027-01-01']);
    const thirty = lastUtcDays(new Date('2026-06-15T12:00:00Z'), 30);
    expect(thirty).toHaveLength(30);
    expect(thirty[0]).toBe('2026-05-17');
    expect(thirty[29]).toBe('2026-06-15');
  });
});

describe('summariseInstalls', () => {
  const now = new Date('2026-06-15T12:00:00Z');

  it('answers zeros and 30 zero-filled days for a skill never downloaded', () => {
    const result = summariseInstalls(now, [], zeroCounts());
    expect(result).toMatchObject({ total: 0, last7d: 0, last30d: 0, bySource: { cli: 0, web: 0, api: 0 } });
    expect(result.daily).toHaveLength(30);
    expect(result.daily.every((d) => d.cli + d.web + d.api === 0)).toBe(true);
  });

  it('counts today and the 6 previous days in last7d, and 30 days in last30d', () => {
    const buckets = [
      day('2026-06-15', 1), // today
      day('2026-06-09', 0, 2), // 6 days ago: still in last7d
      day('2026-06-08', 0, 0, 4), // 7 days ago: only in last30d
      day('2026-05-17', 8), // 29 days ago: the oldest day of last30d
      day('2026-05-16', 16), // 30 days ago: outside both
    ];
    const result = summariseInstalls(now, buckets, counts(100, 20, 3));
    expect(result.last7d).toBe(3);
    expect(result.last30d).toBe(15);
    expect(result.total).toBe(123);
    expect(result.bySource).toEqual({ cli: 100, web: 20, api: 3 });
    expect(result.byClient).toEqual({ skillpress: 100, skills: 0, clawhub: 0, other: 23 });
    expect(result.daily[0]).toEqual(daily('2026-05-17', 8));
    expect(result.daily[29]).toEqual(daily('2026-06-15', 1));
    expect(result.daily.find((d) => d.date === '2026-06-08')).toEqual(daily('2026-06-08', 0, 0, 4));
  });

  it('ignores the order the buckets come in', () => {
    const a = summariseInstalls(now, [day('2026-06-14', 1), day('2026-06-15', 2)], zeroCounts());
    const b = summariseInstalls(now, [day('2026-06-15', 2), day('2026-06-14', 1)], zeroCounts());
    expect(a).toEqual(b);
  });
});

describe('distinct installs in the analytics', () => {
  const now = new Date('2026-06-15T12:00:00Z');

  it('sums a day kept in several shards, and counts distinct clients over the same periods', () => {
    const buckets = [day('2026-06-15', 3, 0, 0, 2), day('2026-06-15', 4, 0, 0, 1), day('2026-06-01', 5, 0, 0, 5), day('2026-04-01', 9, 0, 0, 9)];
    const result = summariseInstalls(now, buckets, counts(21, 0, 0, 17));
    expect(result.daily.at(-1)).toEqual(daily('2026-06-15', 7, 0, 0, 3));
    expect(result).toMatchObject({ total: 21, last7d: 7, last30d: 12, distinct: { total: 17, last7d: 3, last30d: 8 } });
  });
});

describe('which program installed', () => {
  it('names ClawHub for its download endpoint, whatever its user agent', () => {
    expect(clientOf('clawhub', 'node')).toBe('clawhub');
    expect(clientOf('clawhub', undefined)).toBe('clawhub');
  });

  it('names our CLI by its user agent on any channel', () => {
    expect(clientOf('deliver', 'skillpress-cli/1.2.0 node/20.20.0')).toBe('skillpress');
    expect(clientOf('discovery', 'skillpress-cli/1.2.0 node/22.1.0')).toBe('skillpress');
  });

  it('names skills for discovery downloads made with Node’s fetch, and other for the rest', () => {
    expect(clientOf('discovery', 'node')).toBe('skills');
    expect(clientOf('discovery', 'curl/8.5.0')).toBe('other');
    expect(clientOf('deliver', 'node')).toBe('other');
    expect(clientOf('deliver', undefined)).toBe('other');
  });
});
