import { describe, expect, it } from 'vitest';
import { installsDocument, installsOf } from '#core/public-installs';
import { authorSummary, installsLabel } from '../../site/src/lib/format.ts';
import { authorHref } from '../../site/src/lib/skill-links.ts';
import { categoryOrderPath, categoryPages, sortSkills } from '../../site/src/lib/skill-order.ts';

const skill = (slug: string, name: string, updatedAt: string) => ({ slug, name, updatedAt });
const skills = [
  skill('csv', 'CSV Cleaner', '2026-11-03T00:00:00.000Z'),
  skill('sql', 'SQL Explainer', '2026-11-01T00:00:00.000Z'),
  skill('api', 'API Mocker', '2026-11-02T00:00:00.000Z'),
  skill('zip', 'Zip Helper', '2026-11-02T00:00:00.000Z'),
];
const installs = installsDocument(
  [
    ['sql', { total: 50, last30d: 10 }],
    ['csv', { total: 500, last30d: 10 }],
    ['api', { total: 5, last30d: 40 }],
    ['zip', { total: 0, last30d: 0 }],
  ],
  '2026-11-04T00:00:00.000Z',
);

describe('orders of a list of skills', () => {
  it('sorts by name, by installs in the last 30 days then in all, and by last update', () => {
    expect(sortSkills(skills, 'name').map((s) => s.slug)).toEqual(['api', 'csv', 'sql', 'zip']);
    expect(sortSkills(skills, 'popular', installs).map((s) => s.slug)).toEqual(['api', 'csv', 'sql', 'zip']);
    expect(sortSkills(skills, 'recent').map((s) => s.slug)).toEqual(['csv', 'api', 'zip', 'sql']);
    // Without counts, popular is by name: nobody has installed anything.
    expect(sortSkills(skills, 'popular').map((s) => s.slug)).toEqual(['api', 'csv', 'sql', 'zip']);
    expect(skills.map((s) => s.slug)).toEqual(['csv', 'sql', 'api', 'zip']);
  });

  it('makes each order of a category a set of static pages, linked to each other', () => {
    const pages = categoryPages('data', skills, 3, installs);
    expect(pages.map((p) => [p.rest, p.number, p.last, p.skills.map((s) => s.slug).join(',')])).toEqual([
      [undefined, 1, 2, 'api,csv,sql'],
      ['2', 2, 2, 'zip'],
      ['popular', 1, 2, 'api,csv,sql'],
      ['popular/2', 2, 2, 'zip'],
      ['recent', 1, 2, 'csv,api,zip'],
      ['recent/2', 2, 2, 'sql'],
    ]);
    expect([pages[0]!.next, pages[1]!.prev, pages[2]!.next, pages[5]!.prev]).toEqual([
      '/categories/data/2/',
      '/categories/data/',
      '/categories/data/popular/2/',
      '/categories/data/recent/',
    ]);
    expect(categoryOrderPath('data', 'popular')).toBe('/categories/data/popular/');
    expect(categoryPages('empty', [], 60).map((p) => p.rest)).toEqual([undefined, 'popular', 'recent']);
  });
});

describe('public install counts', () => {
  it('leaves out skills nobody installed, and counts a missing skill as zero', () => {
    expect(installs.skills).toEqual({
      sql: { total: 50, last7d: 0, last30d: 10 },
      csv: { total: 500, last7d: 0, last30d: 10 },
      api: { total: 5, last7d: 0, last30d: 40 },
    });
    expect(installsOf(installs, 'zip')).toEqual({ total: 0, last7d: 0, last30d: 0 });
    expect(installsOf(installs, 'constructor')).toEqual({ total: 0, last7d: 0, last30d: 0 });
    expect(installsOf(undefined, 'csv')).toEqual({ total: 0, last7d: 0, last30d: 0 });
  });

  it('reads as a card and an author page say it', () => {
    expect(installsLabel({ total: 1284, last30d: 402 })).toBe('1,284 installs, 402 in 30 days');
    expect(installsLabel({ total: 1, last30d: 1 })).toBe('1 install, 1 in 30 days');
    expect(installsLabel({ total: 0, last30d: 0 })).toBe('No installs yet');
    expect(authorSummary(3, 1284)).toBe('3 skills, 1,284 installs in all');
    expect(authorSummary(1)).toBe('1 skill');
  });

  it('links an author newer than the build to the author fallback page', () => {
    expect(authorHref({ author: 'alice', updatedAt: '2026-11-01' }, '2026-11-02')).toBe('/authors/alice/');
    expect(authorHref({ author: 'bob', updatedAt: '2026-11-03' }, '2026-11-02')).toBe('/authors/_/?login=bob');
  });
});
