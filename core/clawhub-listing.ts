import { invalidRequest } from './errors.ts';

/**
 * The orders of the ClawHub skill list (`GET /api/v1/skills`, docs/api.md §14). Newest first,
 * by last update (`updated`) or by first publish (`createdAt`, what `clawhub explore` asks for
 * by default), is paged with a cursor naming the last skill of the page, so a skill updated
 * while a client pages moves to the front instead of being shown twice or skipping another. By
 * installs, as ClawHub's own registry does, there is one page and no cursor: counts move between
 * requests.
 */

export interface Dated {
  slug: string;
  /** ISO 8601 in UTC, which sorts as text. A catalog entry written before it was listed has none: its update stands in. */
  createdAt?: string;
  updatedAt: string;
}

/** The orders that page with a cursor, and the date each reads. */
export type DatedOrder = 'updated' | 'createdAt';

interface Position {
  at: string;
  slug: string;
}

const positionOf = (entry: Dated, order: DatedOrder): Position => ({
  at: order === 'updated' ? entry.updatedAt : (entry.createdAt ?? entry.updatedAt),
  slug: entry.slug,
});

/** Most recent first; the slug breaks ties, so the order is total. */
function newerFirst(a: Position, b: Position): number {
  if (a.at !== b.at) return a.at > b.at ? -1 : 1;
  return a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0;
}

/**
 * One page of `entries` in `order`, after the skill `cursor` names; `nextCursor` is null on the
 * last page. A cursor this API did not give (or gave for another order) is refused with
 * ClawHub's own words for it, before anything is read.
 */
export function pageByDate<T extends Dated>(
  entries: readonly T[],
  order: DatedOrder,
  limit: number,
  cursor?: string,
): { page: T[]; nextCursor: string | null } {
  const after = cursor === undefined ? undefined : readCursor(cursor, order);
  const sorted = [...entries].sort((a, b) => newerFirst(positionOf(a, order), positionOf(b, order)));
  const start = after ? sorted.findIndex((entry) => newerFirst(positionOf(entry, order), after) > 0) : 0;
  const page = start < 0 ? [] : sorted.slice(start, start + limit);
  const last = page.at(-1);
  const more = start >= 0 && start + limit < sorted.length;
  return { page, nextCursor: more && last ? writeCursor(order, positionOf(last, order)) : null };
}

/**
 * Refuses, before anything is read, a cursor given to an order by installs: those are one page and
 * never give a cursor, so any cursor sent with them is one this API did not give.
 */
export function refuseCursorByInstalls(cursor: string | undefined): void {
  if (cursor !== undefined) throw invalidCursor();
}

/** The `limit` most installed of `entries`, ties newest first. */
export function topByInstalls<T extends Dated>(entries: readonly T[], installs: (entry: T) => number, limit: number): T[] {
  return [...entries].sort((a, b) => installs(b) - installs(a) || newerFirst(positionOf(a, 'updated'), positionOf(b, 'updated'))).slice(0, limit);
}

const ORDER_TAG: Record<DatedOrder, string> = { updated: 'u', createdAt: 'c' };

function writeCursor(order: DatedOrder, { at, slug }: Position): string {
  return Buffer.from(JSON.stringify([ORDER_TAG[order], at, slug]), 'utf8').toString('base64url');
}

/**
 * The position a cursor names, when it is exactly what {@link writeCursor} writes for `order`:
 * canonical base64url of `[tag, ISO time, slug]`. Anything else never came from this API.
 */
function readCursor(cursor: string, order: DatedOrder): Position {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (Array.isArray(value) && value.length === 3) {
    const [tag, at, slug] = value as unknown[];
    const position = typeof at === 'string' && typeof slug === 'string' ? { at, slug } : undefined;
    if (
      position &&
      tag === ORDER_TAG[order] &&
      /^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug as string) &&
      isIsoInstant(position.at) &&
      writeCursor(order, position) === cursor
    )
      return position;
  }
  throw invalidCursor();
}

/** ClawHub's words for a cursor it did not give, which its clients recognise. */
const invalidCursor = () =>
  invalidRequest('Invalid cursor format', {
    issues: [{ path: ['cursor'], message: 'not a cursor this API gave for this order; start again without one' }],
  });

function isIsoInstant(text: string): boolean {
  const time = Date.parse(text);
  return Number.isFinite(time) && new Date(time).toISOString() === text;
}
