import { describe, expect, it } from 'vitest';
import { CURRENCY_CODES, formatPrice, fromStripeAmount, isCurrency, minimumCharge, stripePriceProblem, toStripeAmount } from '#core/price';
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

describe('prices Stripe can charge', () => {
  const accepted = (amount: number, currency: string) => priceSchema.safeParse({ amount, currency }).success;

  it("refuses an amount under Stripe's minimum charge for its currency, in that currency's units", () => {
    for (const [currency, minimum] of [
      ['EUR', 50],
      ['USD', 50],
      ['GBP', 30],
      ['JPY', 50],
      ['HUF', 17_500],
      ['MXN', 1000],
      ['CZK', 1500],
    ] as const) {
      expect(accepted(minimum - 1, currency), `${currency} ${minimum - 1}`).toBe(false);
      expect(accepted(minimum, currency), `${currency} ${minimum}`).toBe(true);
    }
    // The cases of the report: one yen, one euro cent.
    expect(accepted(1, 'JPY')).toBe(false);
    expect(accepted(1, 'EUR')).toBe(false);
    expect(stripePriceProblem({ amount: 1, currency: 'EUR' })).toBe('Stripe charges at least €0.50 in EUR');
  });

  it('gives every currency a smallest charge: one unit of a currency worth little (1 VES, 1 IDR, 1 XOF) is no price', () => {
    for (const [amount, currency] of [
      [1, 'VES'],
      [1, 'IDR'],
      [1, 'XOF'],
      [1, 'UGX'],
      [1, 'VND'],
      [100, 'IDR'],
      [100, 'XOF'],
    ] as const)
      expect(accepted(amount, currency), `${amount} ${currency}`).toBe(false);
    expect(CURRENCY_CODES.length).toBeGreaterThan(150);
    for (const currency of CURRENCY_CODES) {
      const minimum = minimumCharge(currency);
      expect(accepted(minimum - 1, currency), `${currency} ${minimum - 1}`).toBe(false);
      expect(accepted(minimum, currency), `${currency} ${minimum}`).toBe(true);
    }
  });

  it('reads zero-decimal currencies as Stripe does: their minor unit is the unit', () => {
    for (const currency of ['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF'])
      expect(toStripeAmount({ amount: minimumCharge(currency), currency }), currency).toBe(minimumCharge(currency));
  });

  it('refuses three-decimal amounts that do not end in 0 (KWD, BHD, JOD, OMR, TND): card networks take none of the last digit', () => {
    for (const currency of ['KWD', 'BHD', 'JOD', 'OMR', 'TND']) {
      expect(accepted(2505, currency), currency).toBe(false);
      expect(accepted(2500, currency), currency).toBe(true);
    }
    expect(stripePriceProblem({ amount: 1505, currency: 'KWD' })).toBe(
      `KWD amounts must end in 0 (whole hundredths, e.g. 1500 for ${formatPrice({ amount: 1500, currency: 'KWD' })})`,
    );
  });

  it('refuses fractions of a currency Stripe charges in whole units only (MGA), and ISK above what Stripe takes', () => {
    expect(accepted(500_050, 'MGA')).toBe(false);
    expect(accepted(500_000, 'MGA')).toBe(true);
    expect(accepted(999_999, 'ISK')).toBe(true);
    expect(accepted(1_000_000, 'ISK')).toBe(false);
  });

  it("converts to and from Stripe's units where they are not ISO 4217's", () => {
    expect(toStripeAmount({ amount: 999, currency: 'EUR' })).toBe(999);
    expect(toStripeAmount({ amount: 500, currency: 'JPY' })).toBe(500);
    expect(toStripeAmount({ amount: 1500, currency: 'KWD' })).toBe(1500);
    // Stripe counts ISK in hundredths (whole krónur only), and MGA in whole ariary.
    expect(toStripeAmount({ amount: 500, currency: 'ISK' })).toBe(50_000);
    expect(toStripeAmount({ amount: 10_000, currency: 'MGA' })).toBe(100);
    for (const price of [
      { amount: 500, currency: 'ISK' },
      { amount: 10_000, currency: 'MGA' },
      { amount: 999, currency: 'EUR' },
    ])
      expect(fromStripeAmount(toStripeAmount(price), price.currency)).toBe(price.amount);
  });
});
