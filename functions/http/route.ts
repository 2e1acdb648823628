import type { Context, Hono, TypedResponse } from 'hono';
import type * as z from 'zod/mini';
import { type Caller, requireApiKey, requireSession, requireSessionOrApiKey } from './auth.ts';
import { readBody } from './body.ts';
import type { AppEnv } from './env.ts';
import type { Auth, Operation } from './operation.ts';
import { readQuery } from './query.ts';

type Ctx = Context<AppEnv>;

/** The credentials `route()` checks for each kind of operation; the others it leaves to the handler. */
const authenticate: Record<Auth, ((c: Ctx) => Promise<Caller>) | undefined> = {
  none: undefined,
  optional: undefined,
  session: requireSession,
  apiKey: requireApiKey,
  sessionOrApiKey: requireSessionOrApiKey,
  // A publish token is read wherever a key is (auth.ts); `publisher` says it is what the operation is for.
  publisher: requireSessionOrApiKey,
  downloadTokenOrSession: undefined,
  stripeSignature: undefined,
};

/** `'/api/skills/{id}/grants/{login}'` → `'id' | 'login'`; `'/api/pages/{path+}'` → `'path'` (see {@link honoPath}). */
type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? (Name extends `${infer Greedy}+` ? Greedy : Name) | ParamNames<Rest>
  : never;

/** What `route()` has checked and read for the handler, typed by the declaration. */
interface RouteInput<O extends Operation> {
  caller: O['auth'] extends 'session' | 'apiKey' | 'sessionOrApiKey' | 'publisher' ? Caller : undefined;
  body: O extends { body: infer B extends z.ZodMiniType } ? z.output<B> : undefined;
  query: O extends { query: infer Q extends z.ZodMiniObject } ? z.output<Q> : undefined;
  params: Record<ParamNames<O['path']>, string>;
}

/** The statuses an operation's handler may answer: its success, and the redirect it declares beside it. */
type SuccessStatus<O extends Operation> = O['success']['status'] | (O['success'] extends { also: { status: infer S extends 200 | 204 | 303 } } ? S : never);

/** The handler answers a declared success status; errors are thrown as domain errors. */
type RouteHandler<O extends Operation> = (
  c: Ctx,
  input: RouteInput<O>,
) => (Response & TypedResponse<unknown, SuccessStatus<O>>) | Promise<Response & TypedResponse<unknown, SuccessStatus<O>>>;

/**
 * Serves a declared operation (operation.ts) on `app`. In the order docs/api.md §5.3 gives, it
 * checks the credentials the operation takes, then reads and validates its JSON body, then its
 * query, and calls `handler` with what it found; the body size limit is the app's, before all
 * of it. A route served any other way is missing from the OpenAPI document, which a test
 * refuses. For example:
 *
 * ```ts
 * export const grantRoutes: RouteGroup = (app) => {
 *   route(app, grantOperations.grantAccess, async (c, { caller, body, params }) =>
 *     c.json(await grantAccess(c.var.deps, caller.user, params.id, body.login), 201),
 *   );
 * };
 * ```
 */
export function route<O extends Operation>(app: Hono<AppEnv>, operation: O, handler: RouteHandler<O>): void {
  const check = authenticate[operation.auth];
  app.on(operation.method.toUpperCase(), honoPath(operation.path), async (c) => {
    const caller = check ? await check(c) : undefined;
    const body = operation.body ? await readBody(c, operation.body) : undefined;
    const query = operation.query ? readQuery(c, operation.query) : undefined;
    return handler(c, { caller, body, query, params: c.req.param() } as RouteInput<O>);
  });
}

/** `/api/skills/{id}` → `/api/skills/:id`. */
/** `{name}` is one path segment; `{name+}` (API Gateway's greedy parameter) is the rest of the path, slashes included. */
const honoPath = (path: string) => path.replace(/\{(\w+)\+\}/g, ':$1{.+}').replace(/\{(\w+)\}/g, ':$1');
