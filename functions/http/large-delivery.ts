import type { Context } from 'hono';
import type { AppEnv } from './env.ts';

/**
 * The answer to a delivery too large for a response (docs/api.md §7.6, §14.5): `303`, with where
 * to fetch it when the caller is told (a HEAD is never given a link to content only a link
 * reaches). Counted, and its `Location` may be a credential: no shared or browser cache keeps it.
 */
export function largeDeliveryAnswer(c: Context<AppEnv>, location: string | undefined) {
  return c.body(null, 303, { ...(location === undefined ? {} : { Location: location }), 'Cache-Control': 'private, no-store' });
}
