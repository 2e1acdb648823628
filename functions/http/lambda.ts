import { handle } from 'hono/aws-lambda';
import { configFromEnv } from '../config.ts';
import { createDeps } from '../deps.ts';
import { createApp } from './app.ts';
import type { RouteGroup } from './env.ts';

/** Clients and logger are created once per Lambda container and shared by its invocations. */
const deps = createDeps(configFromEnv());

/** A Lambda handler for API Gateway HTTP API (v2) events serving `groups`. */
export function lambdaHandler(groups: RouteGroup[]) {
  return handle(createApp(deps, groups));
}
