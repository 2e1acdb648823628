import type * as z from 'zod/mini';
import type { ErrorCode } from '#core/errors';

/**
 * An API operation as data: what `route()` (route.ts) enforces for it and what the OpenAPI
 * document (openapi.ts) says about it come from this one declaration. Declarations import only
 * `core/`, so the document can list every operation from any Lambda, whatever routes it mounts.
 */

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Which credentials an operation takes (docs/api.md §4.5). `route()` checks the first four
 * before it reads the body; `downloadTokenOrSession` is delivery's rule (§9.3), which the
 * handler applies once it knows whether the skill is paid; `stripeSignature` is Stripe's
 * webhook signature over the raw body, which the handler verifies before anything else;
 * `optional` reads a session or an API key when one is sent, and opens more to it (an
 * organisation's page shows its members the private skills too); `publisher` is a session, an
 * API key or a CI publish token (`spt_`, §7.14): publishing a version, the one thing such a token
 * is for. Every operation that takes a key reads a publish token as one, and the policy refuses
 * what it may not do (`403`), so the document names it only where it is meant to be used.
 */
export type Auth = 'none' | 'optional' | 'session' | 'apiKey' | 'sessionOrApiKey' | 'publisher' | 'downloadTokenOrSession' | 'stripeSignature';

interface Success {
  status: 200 | 201 | 202 | 204 | 302;
  description: string;
  /** The JSON body's schema; none for 204 and redirects. */
  schema?: z.ZodMiniType;
  /**
   * A second success: a redirect to where the answer is fetched instead (303), the same answer
   * for what already existed (200), or nothing to do (204).
   */
  also?: { status: 200 | 204 | 303; description: string; schema?: z.ZodMiniType };
}

interface OperationSpec {
  method: Method;
  /** OpenAPI style, `{name}` for a path parameter: `/api/skills/{id}/grants`. */
  path: `/${string}`;
  summary: string;
  description?: string;
  auth: Auth;
  /** The JSON body, read after the credentials: 415 without a JSON content type, 400 off-schema. */
  body?: z.ZodMiniType;
  /**
   * A body documented but not read by `route()`: the handler needs its exact bytes (a signed
   * webhook), so neither the JSON content-type rule nor the schema applies before it.
   */
  rawBody?: z.ZodMiniType;
  /**
   * A `multipart/form-data` body, documented but read by the handler (`route()` reads only JSON):
   * 415 for another content type, 400 for a malformed form or a part off-schema.
   */
  form?: z.ZodMiniType;
  /** The query string, read after the body: 400 off-schema or for a repeated parameter. */
  query?: z.ZodMiniObject;
  success: Success;
  /**
   * The codes the handler and the services below it can answer. Those `route()` and the app
   * already give (credentials, body, query, the body size limit) are added for you.
   */
  errors?: readonly ErrorCode[];
}

const CHECKED_BEFORE_THE_HANDLER: readonly Auth[] = ['session', 'apiKey', 'sessionOrApiKey', 'publisher'];

/**
 * Every error code an operation can answer (besides 500 `internal`): those it declares, and
 * those it gets from its declaration and the app: the body size limit on every request under
 * `/api/` but GET and HEAD (app.ts), the credentials and, for session writes, the Origin rule
 * (auth.ts), the body (body.ts, or the handler's multipart form) and the query (query.ts).
 */
export function errorsOf(operation: OperationSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  const write = operation.method !== 'get';
  if (write) codes.add('payload_too_large');
  if (CHECKED_BEFORE_THE_HANDLER.includes(operation.auth) || operation.auth === 'optional') codes.add('unauthenticated');
  // An API key past its expiry is told so, wherever a key is read.
  if (operation.auth !== 'none' && operation.auth !== 'session' && operation.auth !== 'stripeSignature') codes.add('expired_key');
  if (write && (operation.auth === 'session' || operation.auth === 'sessionOrApiKey' || operation.auth === 'publisher')) codes.add('csrf_rejected');
  if (operation.body || operation.form) codes.add('unsupported_media_type').add('invalid_request');
  if (operation.query) codes.add('invalid_request');
  for (const code of operation.errors ?? []) codes.add(code);
  return [...codes];
}

/** A group's OpenAPI tag: its name, and a sentence for readers of the document. */
export interface Tag {
  name: string;
  description: string;
}

export interface Operation extends OperationSpec {
  /** The key it is declared under: the document's `operationId`. */
  id: string;
  tag: Tag;
}

/** Refuses keys an operation does not have, so a misspelt `erors:` is a type error rather than ignored. */
type Exact<T, Shape> = T & { [K in Exclude<keyof T, keyof Shape>]: never };

type Declared<T> = { [K in keyof T & string]: T[K] & { id: K; tag: Tag } };

/**
 * Declares a group of API operations under one tag. Each key becomes the operation's id; the
 * route group serves each one with `route(app, group.key, handler)`. For example:
 *
 * ```ts
 * export const grantOperations = operations({ name: 'Grants', description: '…' }, {
 *   grantAccess: {
 *     method: 'post',
 *     path: '/api/skills/{id}/grants',
 *     summary: "Let a user's session download the skill (author only)",
 *     auth: 'sessionOrApiKey',
 *     body: grantBodySchema,
 *     success: { status: 201, description: 'Granted', schema: grantSchema },
 *     errors: ['not_found', 'forbidden'],
 *   },
 * });
 * ```
 */
export function operations<const T extends Record<string, OperationSpec>>(tag: Tag, specs: { [K in keyof T]: Exact<T[K], OperationSpec> }): Declared<T> {
  return Object.fromEntries(Object.entries(specs).map(([id, spec]) => [id, { ...spec, id, tag }])) as Declared<T>;
}

/** A file of the static tree, declared for the document only: no code runs to serve it. */
interface StaticFileSpec {
  path: `/${string}`;
  summary: string;
  description?: string;
  /** The JSON document's schema; absent for an archive. */
  schema?: z.ZodMiniType;
  /** Its object key in the static bucket, from the path's parameters (core/static-paths.ts). */
  key: (params: Record<string, string>) => string;
  /** Whether a path of this shape may name nothing (an unknown slug or version). */
  mayBeMissing: boolean;
}

export interface StaticFile extends Operation {
  static: true;
  key: StaticFileSpec['key'];
}

/** Declares the static files clients read: documented beside the API, served by the CDN. */
export function staticFiles<const T extends Record<string, StaticFileSpec>>(
  tag: Tag,
  specs: { [K in keyof T]: Exact<T[K], StaticFileSpec> },
): Record<keyof T, StaticFile> {
  const declared = Object.entries(specs).map(([id, spec]): [string, StaticFile] => [
    id,
    {
      id,
      tag,
      static: true,
      method: 'get',
      path: spec.path,
      summary: spec.summary,
      ...(spec.description === undefined ? {} : { description: spec.description }),
      auth: 'none',
      key: spec.key,
      success: { status: 200, description: 'The file', ...(spec.schema ? { schema: spec.schema } : {}) },
      errors: spec.mayBeMissing ? ['not_found'] : [],
    },
  ]);
  return Object.fromEntries(declared) as Record<keyof T, StaticFile>;
}
