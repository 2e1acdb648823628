import type { Hono } from 'hono';
import type { Deps } from '../deps.ts';

/** Hono's typing for this service: every handler reaches its dependencies through `deps`. */
export interface AppEnv {
  Variables: { deps: Deps };
}

/** A set of related routes; each Lambda mounts the groups of its concern, `npm start` mounts all. */
export type RouteGroup = (app: Hono<AppEnv>) => void;
