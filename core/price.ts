/**
 * Prices of paid skills (docs/api.md §9.4): an amount in the minor units of an ISO 4217
 * currency, as card networks and Stripe count money (999 EUR cents is €9.99; JPY has no minor
 * unit, so 500 is ¥500). The table below is the list of codes accepted and their exponents;
 * it is kept here rather than read from `Intl`, whose list changes with the ICU version.
 */

export interface Price {
  amount: number;
  /** ISO 4217, upper case. */
  currency: string;
}

/** The largest amount Stripe takes for one payment, in minor units. */
export const MAX_PRICE_MINOR_UNITS = 99_999_999;

const NO_MINOR_UNIT = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX VND VUV XAF XOF XPF';
const THOUSANDTHS = 'BHD IQD JOD KWD LYD OMR TND';
const HUNDREDTHS =
  'AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF CNY COP CRC CUP CVE CZK DKK DOP DZD ' +
  'EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD ' +
  'MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK ' +
  'SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD UYU UZS VES WST XCD XCG YER ZAR ZMW ZWG';

/**
 * ISO 4217 codes of the currencies people pay in (funds, precious metals, test codes and
 * withdrawn currencies left out), with the number of digits of their minor unit.
 */
const exponents: ReadonlyMap<string, number> = new Map([
  ...NO_MINOR_UNIT.split(' ').map((code) => [code, 0] as const),
  ...HUNDREDTHS.split(' ').map((code) => [code, 2] as const),
  ...THOUSANDTHS.split(' ').map((code) => [code, 3] as const),
]);

/** Whether `code` is an ISO 4217 currency code accepted for prices (upper case, as stored). */
export function isCurrency(code: string): boolean {
  return exponents.has(code);
}

/** How many digits the currency's minor unit has: 2 for EUR, 0 for JPY, 3 for KWD. */
export function minorDigits(currency: string): number {
  return exponents.get(currency) ?? 2;
}

/** `{amount: 999, currency: 'EUR'}` → `€9.99`; the same text on the site, in the CLI and in tests. */
export function formatPrice(price: Price): string {
  const digits = minorDigits(price.currency);
  const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: price.currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
  return format.format(price.amount / 10 ** digits);
}
