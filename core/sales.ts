import type { Price } from './price.ts';

/**
 * A skill's sales as its author sees them (docs/api.md §9.5), from its purchase records. Pure:
 * the service feeds it what the table holds. Money is summed per currency, since an author may
 * change a skill's price, and its currency, between sales.
 */

/** A purchase's standing: `disputed` while its charge is disputed, and after a dispute the seller lost. */
export type PurchaseStatus = 'purchased' | 'refunded' | 'disputed';

export interface SaleFacts extends Price {
  status: PurchaseStatus;
}

export interface SalesSummary {
  /** Completed purchases, refunded ones included. */
  count: number;
  /** How many of them were refunded. */
  refunds: number;
  /** Per currency: everything paid, before refunds. */
  gross: Price[];
  /** Per currency: what was paid and not refunded, nor disputed (a dispute withdraws the funds). */
  net: Price[];
}

export function salesSummary(sales: readonly SaleFacts[]): SalesSummary {
  const gross = new Map<string, number>();
  const net = new Map<string, number>();
  for (const sale of sales) {
    gross.set(sale.currency, (gross.get(sale.currency) ?? 0) + sale.amount);
    net.set(sale.currency, (net.get(sale.currency) ?? 0) + (sale.status === 'purchased' ? sale.amount : 0));
  }
  return { count: sales.length, refunds: sales.filter((s) => s.status === 'refunded').length, gross: byCurrency(gross), net: byCurrency(net) };
}

/** Sorted by currency code, so the answer's order never depends on the table's. */
const byCurrency = (totals: Map<string, number>): Price[] =>
  [...totals].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([currency, amount]) => ({ amount, currency }));
