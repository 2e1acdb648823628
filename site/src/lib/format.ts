/** Small display formats shared by the pages (at build time) and the browser scripts. */

import { formatPrice, type Price } from '#core/price';

export { formatBytes } from '#core/format-bytes';
export { formatPrice } from '#core/price';

/** What a skill costs, in a badge or a table: `Free`, `€9.99`, or `Paid` for a paid skill not on sale. */
export function priceLabel(skill: { paid: boolean; price?: Price }): string {
  if (!skill.paid) return 'Free';
  return skill.price ? formatPrice(skill.price) : 'Paid';
}

/** The UTC day of an ISO timestamp, `yyyy-mm-dd`: the same on every machine and in every page. */
export function utcDay(iso: string): string {
  return iso.slice(0, 10);
}

/** `1234567` → `1,234,567`. */
export function formatCount(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function installCommand(slug: string): string {
  return `npx skillpress install ${slug}`;
}

/** `2026-11-01T14:05:09.123Z` → `2026-11-01 14:05 UTC`; '' stays '' (never used). */
export function formatTimestamp(iso: string | null | undefined): string {
  if (!iso) return 'never';
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
