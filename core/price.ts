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

/**
 * Stripe's smallest charge per currency (its "minimum and maximum charge amounts"), in this
 * table's minor units. Other currencies have a minimum worth about 0.50 USD at the day's rate,
 * which no table can hold: Stripe refuses such a checkout itself (503 payments_unavailable).
 */
const STRIPE_MINIMUMS: ReadonlyMap<string, number> = new Map([
  ['USD', 50],
  ['AED', 200],
  ['AUD', 50],
  ['BGN', 100],
  ['BRL', 50],
  ['CAD', 50],
  ['CHF', 50],
  ['CZK', 1500],
  ['DKK', 250],
  ['EUR', 50],
  ['GBP', 30],
  ['HKD', 400],
  ['HUF', 17_500],
  ['INR', 50],
  ['JPY', 50],
  ['MXN', 1000],
  ['MYR', 200],
  ['NOK', 300],
  ['NZD', 50],
  ['PLN', 200],
  ['RON', 200],
  ['SEK', 300],
  ['SGD', 50],
  ['THB', 1000],
]);

/**
 * How many of this table's minor units make one of Stripe's, where the two differ. Stripe takes
 * MGA in whole ariary (ISO 4217 has two digits) and ISK in hundredths of which only whole krónur
 * are charged (ISO 4217 has none): 10,000 MGA minor units are 100 for Stripe, 500 ISK are 50,000.
 */
const STRIPE_UNITS: ReadonlyMap<string, number> = new Map([
  ['MGA', 100],
  ['ISK', 1 / 100],
]);

/** The amount as Stripe takes it for `price.currency` (`unit_amount`). */
export function toStripeAmount(price: Price): number {
  return Math.round(price.amount / (STRIPE_UNITS.get(price.currency) ?? 1));
}

/** An amount Stripe reports (a Checkout Session's total) in this table's minor units. */
export function fromStripeAmount(amount: number, currency: string): number {
  return Math.round(amount * (STRIPE_UNITS.get(currency.toUpperCase()) ?? 1));
}

/**
 * Why Stripe could not charge `price`, or null when it can: under the currency's minimum charge,
 * a three-decimal amount whose last digit is not 0 (card networks settle those currencies to the
 * hundredth), a fraction of a unit Stripe takes whole, or over what Stripe takes in one payment.
 */
export function stripePriceProblem(price: Price): string | null {
  const { amount, currency } = price;
  const minimum = STRIPE_MINIMUMS.get(currency);
  if (minimum !== undefined && amount < minimum) return `Stripe charges at least ${formatPrice({ amount: minimum, currency })} in ${currency}`;
  if (minorDigits(currency) === 3 && amount % 10 !== 0) {
    return `${currency} amounts must end in 0 (whole hundredths, e.g. ${amount - (amount % 10)} for ${formatPrice({ amount: amount - (amount % 10), currency })})`;
  }
  const unit = STRIPE_UNITS.get(currency);
  if (unit !== undefined && unit > 1 && amount % unit !== 0) return `Stripe charges ${currency} in whole units only: the amount must be a multiple of ${unit}`;
  if (toStripeAmount(price) > MAX_PRICE_MINOR_UNITS) return `Stripe takes at most ${MAX_PRICE_MINOR_UNITS} of its units of ${currency} in one payment`;
  return null;
}
