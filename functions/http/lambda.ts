import { handle } from 'hono/aws-lambda';
import { awsDeps } from '../platform/composition.ts';
import { createApp } from './app.ts';
import type { RouteGroup } from './env.ts';

/** Clients and logger are created once per Lambda container and shared by its invocations. */
const deps = awsDeps();

/**
 * A Lambda handler for API Gateway HTTP API (v2) events serving `groups`. Install counts are
 * written before the invocation returns: a frozen or recycled container must not hold any. A
 * count that cannot be written stays pending for the next invocation's flush.
 */
export function lambdaHandler(groups: RouteGroup[]) {
  const serve = handle(createApp(deps, groups));
  return async (...args: Parameters<typeof serve>): Promise<Awaited<ReturnType<typeof serve>>> => {
    try {
      return await serve(...args);
    } finally {
      await deps.downloads.flush().catch((error: unknown) => deps.log.error('could not write download counts; will retry', { error: (error as Error).name }));
    }
  };
}
