import { describe, expect, it } from 'vitest';
import { formatPrice, isCurrency } from '#core/price';
import { priceSchema } from '#core/schemas';

describe('prices', () => {
  it('accepts ISO 4217 codes people pay in, in either case, and stores them in upper case', () => {
    expect(priceSchema.parse({ amount: 999, currency: 'eur' })).toEqual({ amount: 999, currency: 'EUR' });
    for (const code of ['USD', 'JPY', 'KWD', 'CHF', 'XOF']) expect(isCurrency(code), code).toBe(true);
  });

  it('refuses codes that are not currencies one pays in: unknown, funds, metals, test codes, withdrawn ones', () => {
    for (const code of ['ABC', 'XAU', 'XTS', 'XXX', 'XDR', 'HRK', 'eur']) expect(isCurrency(code), code).toBe(false);
    expect(priceSchema.safeParse({ amount: 999, currency: 'EURO' }).success).toBe(false);
  });

  it('takes positive whole minor units up to what Stripe takes in one payment', () => {
    for (const amount of [0, -1, 1.5, 100_000_000, Number.NaN]) expect(priceSchema.safeParse({ amount, currency: 'EUR' }).success, String(amount)).toBe(false);
    expect(priceSchema.safeParse({ amount: 99_999_999, currency: 'EUR' }).success).toBe(true);
  });

  it('formats minor units with the digits of the currency', () => {
    expect(formatPrice({ amount: 999, currency: 'EUR' })).toBe('€9.99');
    expect(formatPrice({ amount: 500, currency: 'JPY' })).toBe('¥500');
    expect(formatPrice({ amount: 1500, currency: 'KWD' })).toBe('KWD\u00a01.500');
    expect(formatPrice({ amount: 100_000, currency: 'USD' })).toBe('$1,000.00');
  });
});
