import { describe, expect, it } from 'vitest';
import { salesSummary } from '#core/sales';

describe('salesSummary', () => {
  it('counts sales and refunds and sums money per currency, before and after refunds', () => {
    const summary = salesSummary([
      { amount: 999, currency: 'EUR', status: 'purchased' },
      { amount: 999, currency: 'EUR', status: 'refunded' },
      { amount: 1200, currency: 'USD', status: 'purchased' },
      { amount: 1099, currency: 'EUR', status: 'purchased' },
    ]);
    expect(summary).toEqual({
      count: 4,
      refunds: 1,
      gross: [
        { amount: 3097, currency: 'EUR' },
        { amount: 1200, currency: 'USD' },
      ],
      net: [
        { amount: 2098, currency: 'EUR' },
        { amount: 1200, currency: 'USD' },
      ],
    });
  });

  it('is all zeros and empty lists without sales', () => {
    expect(salesSummary([])).toEqual({ count: 0, refunds: 0, gross: [], net: [] });
  });
});
