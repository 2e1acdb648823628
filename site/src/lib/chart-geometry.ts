/**
 * The geometry of the analytics chart: one stacked bar per day (cli, web, api), scaled to a
 * round maximum, in a fixed viewBox so the chart never changes the page's layout. Pure, so the
 * numbers drawn are tested against the numbers given.
 */
export const CHART_SOURCES = ['cli', 'web', 'api'] as const;
export type ChartSource = (typeof CHART_SOURCES)[number];

export interface DayCounts {
  date: string;
  cli: number;
  web: number;
  api: number;
}

export interface ChartBox {
  width: number;
  height: number;
  /** Room on the left for the axis labels and at the bottom for the dates. */
  left: number;
  bottom: number;
  top: number;
}

export const DEFAULT_BOX: ChartBox = { width: 960, height: 240, left: 44, bottom: 26, top: 10 };
/**
 * A phone's box: about as wide as the chart is drawn there, so its labels keep their size (the
 * wide box shrunk to a phone's width drew them 4 to 5 px tall). The stylesheet gives the <svg>
 * the same aspect ratio on the same screens.
 */
export const PHONE_BOX: ChartBox = { width: 360, height: 240, left: 40, bottom: 28, top: 12 };
/** The screens {@link PHONE_BOX} is for; the stylesheet's breakpoint. */
export const PHONE_QUERY = '(max-width: 40rem)';

export interface Segment {
  source: ChartSource;
  value: number;
  y: number;
  height: number;
}

export interface Bar {
  date: string;
  total: number;
  x: number;
  width: number;
  segments: Segment[];
}

export interface ChartGeometry {
  box: ChartBox;
  max: number;
  ticks: { value: number; y: number }[];
  bars: Bar[];
  /** The baseline's y. */
  baseline: number;
}

export function stackedBars(daily: readonly DayCounts[], box: ChartBox = DEFAULT_BOX): ChartGeometry {
  const plotHeight = box.height - box.top - box.bottom;
  const baseline = box.top + plotHeight;
  const max = niceMax(Math.max(0, ...daily.map((d) => d.cli + d.web + d.api)));
  const scale = (value: number) => (value / max) * plotHeight;
  const slot = (box.width - box.left) / Math.max(1, daily.length);
  const width = Math.max(1, slot * 0.7);
  const bars = daily.map((day, i) => {
    let top = baseline;
    const segments = CHART_SOURCES.map((source) => {
      const height = scale(day[source]);
      top -= height;
      return { source, value: day[source], y: round(top), height: round(height) };
    });
    return { date: day.date, total: day.cli + day.web + day.api, x: round(box.left + i * slot + (slot - width) / 2), width: round(width), segments };
  });
  const ticks = [0, 0.5, 1].map((f) => ({ value: max * f, y: round(baseline - scale(max * f)) }));
  return { box, max, ticks, bars, baseline };
}

/** The smallest of 1, 2, 5 × 10^k (at least 4, so an empty chart still has an axis) ≥ `value`. */
export function niceMax(value: number): number {
  if (value <= 4) return 4;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
