import { invalidRequest } from './errors.ts';

/**
 * The orders of the ClawHub skill list (`GET /api/v1/skills`, docs/api.md §14). Newest first is
 * paged with a cursor naming the last skill of the page, so a skill updated while a client pages
 * moves to the front instead of being shown twice or skipping another. By installs, as ClawHub's
 * own registry does, there is one page and no cursor: counts move between requests.
 */

export interface Dated {
  slug: string;
  /** ISO 8601 in UTC, which sorts as text. */
  updatedAt: string;
}

interface Position {
  updatedAt: string;
  slug: string;
}

/** Updated most recently first; the slug breaks ties, so the order is total. */
function newerFirst(a: Position, b: Position): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt > b.updatedAt ? -1 : 1;
  return a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0;
}

/** One page of `entries`, newest first, after the skill `cursor` names; `nextCursor` is null on the last page. */
export function pageByUpdated<T extends Dated>(entries: readonly T[], limit: number, cursor?: string): { page: T[]; nextCursor: string | null } {
  const after = cursor === undefined ? undefined : readCursor(cursor);
  const sorted = [...entries].sort(newerFirst);
  const start = after ? sorted.findIndex((entry) => newerFirst(entry, after) > 0) : 0;
  const page = start < 0 ? [] : sorted.slice(start, start + limit);
  const last = page.at(-1);
  const more = start >= 0 && start + limit < sorted.length;
  return { page, nextCursor: more && last ? writeCursor(last) : null };
}

/** The `limit` most installed of `entries`, ties newest first. */
export function topByInstalls<T extends Dated>(entries: readonly T[], installs: (entry: T) => number, limit: number): T[] {
  return [...entries].sort((a, b) => installs(b) - installs(a) || newerFirst(a, b)).slice(0, limit);
}

function writeCursor({ updatedAt, slug }: Position): string {
  return Buffer.from(JSON.stringify([updatedAt, slug]), 'utf8').toString('base64url');
}

function readCursor(cursor: string): Position {
  try {
    const [updatedAt, slug] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof updatedAt === 'string' && typeof slug === 'string') return { updatedAt, slug };
  } catch {
    // answered below
  }
  throw invalidRequest('cursor: not a cursor this API gave; start again without one', { issues: [{ path: ['cursor'], message: 'unknown cursor' }] });
}
