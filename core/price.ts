/**
 * Prices of paid skills (docs/api.md §9.4): an amount in the minor units of an ISO 4217
 * currency, as card networks and Stripe count money (999 EUR cents is €9.99; JPY has no minor
 * unit, so 500 is ¥500). The table below is the list of codes accepted, their exponents and
 * their smallest charges; it is kept here rather than read from `Intl`, whose list changes with
 * the ICU version.
 */

export interface Price {
  amount: number;
  /** ISO 4217, upper case. */
  currency: string;
}

/** The largest amount Stripe takes for one payment, in minor units. */
export const MAX_PRICE_MINOR_UNITS = 99_999_999;

/**
 * The currencies prices may be in: ISO 4217 codes of the currencies people pay in (funds, precious
 * metals, test codes and withdrawn currencies left out), each with
 * - the digits of its minor unit (ISO 4217; 0 for the zero-decimal currencies, 2 for most, 3 for
 *   the dinars and rials that have thousandths), which is how amounts are counted;
 * - its smallest charge, in those minor units: Stripe's published minimum charge where Stripe
 *   publishes one (USD, EUR, GBP, JPY and 20 more: €0.50, £0.30, ¥50 …); for every other currency,
 *   where Stripe's minimum is what 0.50 USD is worth on the day, that worth at the rates of late
 *   2025 with a fifth more for the rate to move, rounded up to 1, 2 or 5 of a power of ten; three
 *   times it for currencies whose rate moves fast (ARS, VES, NGN, TRY, …).
 * docs/api.md §9.4 lists the rows; review the rates with the table when a currency's value moves.
 */
const CURRENCIES: readonly (readonly [code: string, digits: 0 | 2 | 3, minimum: number])[] = [
  ['AED', 2, 200],
  ['AFN', 2, 5_000],
  ['ALL', 2, 10_000],
  ['AMD', 2, 50_000],
  ['AOA', 2, 200_000],
  ['ARS', 2, 500_000],
  ['AUD', 2, 50],
  ['AWG', 2, 200],
  ['AZN', 2, 200],
  ['BAM', 2, 200],
  ['BBD', 2, 200],
  ['BDT', 2, 10_000],
  ['BGN', 2, 100],
  ['BHD', 3, 500],
  ['BIF', 0, 2_000],
  ['BMD', 2, 100],
  ['BND', 2, 100],
  ['BOB', 2, 500],
  ['BRL', 2, 50],
  ['BSD', 2, 100],
  ['BTN', 2, 10_000],
  ['BWP', 2, 1_000],
  ['BYN', 2, 200],
  ['BZD', 2, 200],
  ['CAD', 2, 50],
  ['CDF', 2, 500_000],
  ['CHF', 2, 50],
  ['CLP', 0, 1_000],
  ['CNY', 2, 500],
  ['COP', 2, 500_000],
  ['CRC', 2, 50_000],
  ['CUP', 2, 5_000],
  ['CVE', 2, 10_000],
  ['CZK', 2, 1_500],
  ['DJF', 0, 200],
  ['DKK', 2, 250],
  ['DOP', 2, 5_000],
  ['DZD', 2, 10_000],
  ['EGP', 2, 10_000],
  ['ERN', 2, 1_000],
  ['ETB', 2, 50_000],
  ['EUR', 2, 50],
  ['FJD', 2, 200],
  ['FKP', 2, 50],
  ['GBP', 2, 30],
  ['GEL', 2, 200],
  ['GHS', 2, 2_000],
  ['GIP', 2, 50],
  ['GMD', 2, 5_000],
  ['GNF', 0, 10_000],
  ['GTQ', 2, 500],
  ['GYD', 2, 20_000],
  ['HKD', 2, 400],
  ['HNL', 2, 2_000],
  ['HTG', 2, 10_000],
  ['HUF', 2, 17_500],
  ['IDR', 2, 1_000_000],
  ['ILS', 2, 200],
  ['INR', 2, 50],
  ['IQD', 3, 1_000_000],
  ['IRR', 2, 10_000_000],
  ['ISK', 0, 100],
  ['JMD', 2, 10_000],
  ['JOD', 3, 500],
  ['JPY', 0, 50],
  ['KES', 2, 10_000],
  ['KGS', 2, 10_000],
  ['KHR', 2, 500_000],
  ['KMF', 0, 500],
  ['KPW', 2, 200_000],
  ['KRW', 0, 1_000],
  ['KWD', 3, 200],
  ['KYD', 2, 50],
  ['KZT', 2, 50_000],
  ['LAK', 2, 5_000_000],
  ['LBP', 2, 20_000_000],
  ['LKR', 2, 20_000],
  ['LRD', 2, 20_000],
  ['LSL', 2, 2_000],
  ['LYD', 3, 5_000],
  ['MAD', 2, 1_000],
  ['MDL', 2, 2_000],
  ['MGA', 2, 500_000],
  ['MKD', 2, 5_000],
  ['MMK', 2, 500_000],
  ['MNT', 2, 500_000],
  ['MOP', 2, 500],
  ['MRU', 2, 5_000],
  ['MUR', 2, 5_000],
  ['MVR', 2, 1_000],
  ['MWK', 2, 500_000],
  ['MXN', 2, 1_000],
  ['MYR', 2, 200],
  ['MZN', 2, 5_000],
  ['NAD', 2, 2_000],
  ['NGN', 2, 500_000],
  ['NIO', 2, 5_000],
  ['NOK', 2, 300],
  ['NPR', 2, 10_000],
  ['NZD', 2, 50],
  ['OMR', 3, 500],
  ['PAB', 2, 100],
  ['PEN', 2, 500],
  ['PGK', 2, 500],
  ['PHP', 2, 5_000],
  ['PKR', 2, 20_000],
  ['PLN', 2, 200],
  ['PYG', 0, 5_000],
  ['QAR', 2, 500],
  ['RON', 2, 200],
  ['RSD', 2, 10_000],
  ['RUB', 2, 5_000],
  ['RWF', 0, 1_000],
  ['SAR', 2, 500],
  ['SBD', 2, 500],
  ['SCR', 2, 1_000],
  ['SDG', 2, 100_000],
  ['SEK', 2, 300],
  ['SGD', 2, 50],
  ['SHP', 2, 50],
  ['SLE', 2, 2_000],
  ['SOS', 2, 50_000],
  ['SRD', 2, 5_000],
  ['SSP', 2, 1_000_000],
  ['STN', 2, 2_000],
  ['SVC', 2, 1_000],
  ['SYP', 2, 2_000_000],
  ['SZL', 2, 2_000],
  ['THB', 2, 1_000],
  ['TJS', 2, 1_000],
  ['TMT', 2, 500],
  ['TND', 3, 2_000],
  ['TOP', 2, 200],
  ['TRY', 2, 10_000],
  ['TTD', 2, 500],
  ['TWD', 2, 2_000],
  ['TZS', 2, 200_000],
  ['UAH', 2, 5_000],
  ['UGX', 0, 5_000],
  ['USD', 2, 50],
  ['UYU', 2, 5_000],
  ['UZS', 2, 2_000_000],
  ['VES', 2, 50_000],
  ['VND', 0, 20_000],
  ['VUV', 0, 100],
  ['WST', 2, 200],
  ['XAF', 0, 500],
  ['XCD', 2, 200],
  ['XCG', 2, 200],
  ['XOF', 0, 500],
  ['XPF', 0, 100],
  ['YER', 2, 20_000],
  ['ZAR', 2, 2_000],
  ['ZMW', 2, 2_000],
  ['ZWG', 2, 5_000],
];

const currencyTable: ReadonlyMap<string, { digits: number; minimum: number }> = new Map(
  CURRENCIES.map(([code, digits, minimum]) => [code, { digits, minimum }]),
);

/** Every accepted currency code, in alphabetical order. */
export const CURRENCY_CODES: readonly string[] = CURRENCIES.map(([code]) => code);

/** Whether `code` is an ISO 4217 currency code accepted for prices (upper case, as stored). */
export function isCurrency(code: string): boolean {
  return currencyTable.has(code);
}

/** How many digits the currency's minor unit has: 2 for EUR, 0 for JPY, 3 for KWD. */
export function minorDigits(currency: string): number {
  return currencyTable.get(currency)?.digits ?? 2;
}

/** `{amount: 999, currency: 'EUR'}` → `€9.99`; the same text on the site, in the CLI and in tests. */
export function formatPrice(price: Price): string {
  const digits = minorDigits(price.currency);
  const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: price.currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
  return format.format(price.amount / 10 ** digits);
}

/** The smallest price in `currency`, in its minor units (the table above). */
export function minimumCharge(currency: string): number {
  return currencyTable.get(currency)?.minimum ?? 0;
}

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
 * Why Stripe could not charge `price`, or null when it can: under the currency's smallest charge,
 * a three-decimal amount whose last digit is not 0 (card networks settle those currencies to the
 * hundredth), a fraction of a unit Stripe takes whole, or over what Stripe takes in one payment.
 */
export function stripePriceProblem(price: Price): string | null {
  const { amount, currency } = price;
  const minimum = minimumCharge(currency);
  if (amount < minimum) return `Stripe charges at least ${formatPrice({ amount: minimum, currency })} in ${currency}`;
  if (minorDigits(currency) === 3 && amount % 10 !== 0) {
    return `${currency} amounts must end in 0 (whole hundredths, e.g. ${amount - (amount % 10)} for ${formatPrice({ amount: amount - (amount % 10), currency })})`;
  }
  const unit = STRIPE_UNITS.get(currency);
  if (unit !== undefined && unit > 1 && amount % unit !== 0) return `Stripe charges ${currency} in whole units only: the amount must be a multiple of ${unit}`;
  if (toStripeAmount(price) > MAX_PRICE_MINOR_UNITS) return `Stripe takes at most ${MAX_PRICE_MINOR_UNITS} of its units of ${currency} in one payment`;
  return null;
}
