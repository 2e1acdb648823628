import { describe, expect, it } from 'vitest';
import { DEFAULT_BOX, niceMax, stackedBars } from '../../site/src/lib/chart-geometry.ts';

const days = (counts: [number, number, number][]) => counts.map(([cli, web, api], i) => ({ date: `2026-11-${String(i + 1).padStart(2, '0')}`, cli, web, api }));

describe('analytics chart geometry', () => {
  it('rounds the scale up to 1, 2 or 5 times a power of ten, at least 4', () => {
    expect([0, 3, 4, 5, 7, 11, 20, 21, 99, 101, 4999].map(niceMax)).toEqual([4, 4, 4, 5, 10, 20, 20, 50, 100, 200, 5000]);
  });

  it('stacks cli, web and api in one bar per day, heights proportional to the counts', () => {
    const chart = stackedBars(
      days([
        [5, 2, 1],
        [0, 0, 0],
        [10, 0, 0],
      ]),
    );
    expect(chart.max).toBe(10);
    expect(chart.bars).toHaveLength(3);
    const plot = DEFAULT_BOX.height - DEFAULT_BOX.top - DEFAULT_BOX.bottom;
    const [first, empty, full] = chart.bars;
    expect(first!.total).toBe(8);
    expect(first!.segments.map((s) => [s.source, s.value])).toEqual([
      ['cli', 5],
      ['web', 2],
      ['api', 1],
    ]);
    expect(first!.segments.map((s) => s.height)).toEqual([plot * 0.5, plot * 0.2, plot * 0.1].map((h) => Math.round(h * 100) / 100));
    // Segments sit on each other, the first on the baseline.
    expect(first!.segments[0]!.y + first!.segments[0]!.height).toBeCloseTo(chart.baseline, 1);
    expect(first!.segments[1]!.y + first!.segments[1]!.height).toBeCloseTo(first!.segments[0]!.y, 1);
    expect(empty!.segments.every((s) => s.height === 0)).toBe(true);
    expect(full!.segments[0]!.y).toBeCloseTo(DEFAULT_BOX.top, 1);
  });

  it('keeps every bar inside the box, in date order, with axis ticks at 0, half and max', () => {
    const chart = stackedBars(days(Array.from({ length: 30 }, (_, i) => [i, i % 3, 1] as [number, number, number])));
    for (const [i, bar] of chart.bars.entries()) {
      expect(bar.x).toBeGreaterThanOrEqual(DEFAULT_BOX.left);
      expect(bar.x + bar.width).toBeLessThanOrEqual(DEFAULT_BOX.width);
      if (i > 0) expect(bar.x).toBeGreaterThan(chart.bars[i - 1]!.x);
    }
    expect(chart.ticks.map((t) => t.value)).toEqual([0, chart.max / 2, chart.max]);
  });
});
