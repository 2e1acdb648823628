/** One measured figure: what, how much, and the target it is held to when there is one. */
export interface Row {
  section: string;
  metric: string;
  value: number;
  unit: string;
  target?: string;
  ok?: boolean;
  /** The same figure measured on the peer (Verdaccio, the skills CLI), when the section compares the two. */
  peer?: number;
  /** Who the peer is; the table's column says "verdaccio" when no row names another. */
  peerName?: string;
  /** value / peer. */
  ratio?: number;
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

/**
 * A row comparing our figure with the peer's; `ratio` is ours / theirs, held to at least
 * `atLeast` (rates) or at most `atMost` (durations).
 */
export function compared(
  section: string,
  metric: string,
  unit: string,
  ours: number,
  peer: number,
  target?: { atLeast: number } | { atMost: number },
  peerName?: string,
): Row {
  const ratio = round(ours / peer, 2);
  const held = !target
    ? {}
    : 'atLeast' in target
      ? { target: `≥ ${target.atLeast}×`, ok: ratio >= target.atLeast }
      : { target: `≤ ${target.atMost}×`, ok: ratio <= target.atMost };
  return { section, metric, value: round(ours), peer: round(peer), ratio, unit, ...held, ...(peerName ? { peerName } : {}) };
}

export function printTable(rows: Row[]): void {
  // The peer columns appear only when some row compares.
  const peers = rows.some((r) => r.peer !== undefined);
  const names = new Set(rows.filter((r) => r.peer !== undefined).map((r) => r.peerName ?? 'verdaccio'));
  const peer = names.size === 1 ? [...names][0]! : 'peer';
  const header = ['section', 'metric', peers ? 'ours' : 'value', ...(peers ? [peer, `ours/${peer}`] : []), 'unit', 'target', ''];
  const numeric = new Set(peers ? [2, 3, 4] : [2]);
  const body = rows.map((r) => [
    r.section,
    r.metric,
    String(r.value),
    ...(peers ? [r.peer === undefined ? '' : String(r.peer), r.ratio === undefined ? '' : `${r.ratio}×`] : []),
    r.unit,
    r.target ?? '',
    r.ok === undefined ? '' : r.ok ? 'ok' : 'MISS',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const b of body) console.log(line(b));
}
