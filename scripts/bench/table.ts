/** One measured figure: what, how much, and the target it is held to when there is one. */
export interface Row {
  section: string;
  metric: string;
  value: number;
  unit: string;
  target?: string;
  ok?: boolean;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** p50/p95/p99 rows for a list of latencies in milliseconds. */
export function latencyRows(section: string, metric: string, samples: number[], targets: { p50?: number; p95?: number } = {}): Row[] {
  const sorted = [...samples].sort((a, b) => a - b);
  return (['p50', 'p95', 'p99'] as const).map((p) => {
    const value = round(percentile(sorted, Number(p.slice(1))));
    const limit = p === 'p50' ? targets.p50 : p === 'p95' ? targets.p95 : undefined;
    return { section, metric: `${metric} ${p}`, value, unit: 'ms', ...(limit !== undefined ? { target: `≤ ${limit}`, ok: value <= limit } : {}) };
  });
}

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

export function printTable(rows: Row[]): void {
  const header = ['section', 'metric', 'value', 'unit', 'target', ''];
  const body = rows.map((r) => [r.section, r.metric, String(r.value), r.unit, r.target ?? '', r.ok === undefined ? '' : r.ok ? 'ok' : 'MISS']);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => (i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ') + ' |';
  console.log(line(header));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const b of body) console.log(line(b));
}
