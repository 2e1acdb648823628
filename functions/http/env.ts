import type { Hono } from 'hono';
import type { Deps } from '../platform/composition.ts';
import type { ApiKeyUse } from '../services/api-keys.ts';

/** Hono's typing for this service: every handler reaches its dependencies through `deps`. */
export interface AppEnv {
  Variables: {
    deps: Deps;
    /** Set by a responder whose headers already include the security headers and Cache-Control. */
    headersComplete?: true;
    /** The API key that authenticated this request, if one did: its use is recorded when the request succeeds. */
    apiKeyUsed?: ApiKeyUse;
  };
}

/** A set of related routes; each Lambda mounts the groups of its concern, `npm start` mounts all. */
export type RouteGroup = (app: Hono<AppEnv>) => void;
