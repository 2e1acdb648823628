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

/** A skill's public install counts in a card or a page: `1,284 installs, 402 in 30 days`. */
export function installsLabel({ total, last30d }: { total: number; last30d: number }): string {
  if (total === 0) return 'No installs yet';
  return `${formatCount(total)} ${total === 1 ? 'install' : 'installs'}, ${formatCount(last30d)} in 30 days`;
}

/** A skill's installs in all, on its page. */
export function installsTotal({ total }: { total: number }): string {
  return total === 0 ? 'None yet' : formatCount(total);
}

/** Beside a skill's total installs: `(402 this week, #3 of all skills; 1,210 in 30 days)`; '' for none. */
export function weeklyInstallsLabel({ total, last7d, last30d }: { total: number; last7d: number; last30d: number }, rank?: number): string {
  if (total === 0) return '';
  const week = `${formatCount(last7d)} this week${rank ? `, #${formatCount(rank)} of all skills` : ''}`;
  return `(${week}; ${formatCount(last30d)} in 30 days)`;
}

/** Under an author's name: `3 skills, 1,284 installs in all` (the counts when the build had them). */
export function authorSummary(skills: number, installs?: number): string {
  const count = `${formatCount(skills)} ${skills === 1 ? 'skill' : 'skills'}`;
  return installs === undefined ? count : `${count}, ${formatCount(installs)} ${installs === 1 ? 'install' : 'installs'} in all`;
}

/** Where `npm start` serves: the origin a page built without one names in its commands. */
export const LOCAL_ORIGIN = 'http://127.0.0.1:8787';

/**
 * Our CLI's install command, as it works pasted into a fresh shell: npx fetches the client from
 * the registry itself (`/cli/skillpress.tgz`), which defaults to the origin that served it.
 */
export function installCommand(slug: string, origin = LOCAL_ORIGIN): string {
  return `npx -y ${origin}/cli/skillpress.tgz install ${slug}`;
}

/**
 * The `skills` CLI's install command for a free skill, through the skill's own discovery index
 * under its page: given the site's root, `skills add` downloads every skill of the root index
 * before it chooses, and each download counts as an install.
 */
export function skillsCommand(slug: string, origin = LOCAL_ORIGIN): string {
  return `npx skills add ${origin}/skills/${slug}`;
}

/** `2026-11-01T14:05:09.123Z` → `2026-11-01 14:05 UTC`; '' stays '' (never used). */
export function formatTimestamp(iso: string | null | undefined): string {
  if (!iso) return 'never';
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
