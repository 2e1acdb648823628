import * as z from 'zod/mini';
import { type ErrorCode, statusOf } from '#core/errors';
import { errorBodySchema } from '#core/schemas';
import { headersForKey } from '#core/static-paths';
import { apiOperations, staticOperations } from './all-operations.ts';
import { type Auth, errorsOf, type Operation, type StaticFile } from './operation.ts';

/**
 * The OpenAPI 3.1 document, generated from the operation declarations that `route()` serves
 * (operation.ts) and from the same zod schemas that validate requests, so it cannot drift from
 * what the server routes and accepts. Static files are marked `x-static: true`.
 */
let cached: object | undefined;

export function openApiDocument(): object {
  cached ??= build();
  return cached;
}

function build(): object {
  const all = [...apiOperations, ...staticOperations];
  const paths: Record<string, Record<string, object>> = {};
  for (const operation of all) {
    // OpenAPI has no greedy parameter: `{path+}` is documented as `{path}`, described as such.
    const path = operation.path.replace(/\{(\w+)\+\}/g, '{$1}');
    paths[path] ??= {};
    paths[path]![operation.method] = operationObject(operation);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Skillpress', version: '1.0.0', description: 'A marketplace for agent skills.' },
    tags: [...new Map(all.map(({ tag }) => [tag.name, tag])).values()],
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An sk_ API key' },
        publishToken: { type: 'http', scheme: 'bearer', description: 'An spt_ publish token from POST /api/oidc/exchange' },
        session: { type: 'apiKey', in: 'cookie', name: 'skillpress_session' },
        downloadToken: { type: 'apiKey', in: 'query', name: 'token', description: 'A download token issued by the author' },
        stripeSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'Stripe-Signature',
          description: "Stripe's signature of the raw body with the webhook's signing secret",
        },
      },
    },
    paths,
  };
}

const security: Record<Auth, object[] | undefined> = {
  none: undefined,
  // Nothing needed; a session or a key opens more.
  optional: [{}, { apiKey: [] }, { session: [] }],
  session: [{ session: [] }],
  apiKey: [{ apiKey: [] }],
  sessionOrApiKey: [{ apiKey: [] }, { session: [] }],
  publisher: [{ apiKey: [] }, { publishToken: [] }, { session: [] }],
  // Free skills need nothing, hence the empty requirement.
  downloadTokenOrSession: [{}, { downloadToken: [] }, { session: [] }, { apiKey: [] }],
  stripeSignature: [{ stripeSignature: [] }],
};

function operationObject(operation: Operation | StaticFile): object {
  const parameters = [...pathParameters(operation.path), ...(operation.query ? queryParameters(operation.query) : [])];
  const auth = security[operation.auth];
  return {
    operationId: operation.id,
    tags: [operation.tag.name],
    summary: operation.summary,
    ...(operation.description === undefined ? {} : { description: operation.description }),
    ...(auth ? { security: auth } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body ? { requestBody: { required: true, ...json(operation.body, 'input') } } : {}),
    ...(operation.rawBody ? { requestBody: { required: true, ...json(operation.rawBody, 'input') } } : {}),
    ...(operation.form ? { requestBody: { required: true, content: { 'multipart/form-data': { schema: jsonSchema(operation.form, 'input') } } } } : {}),
    responses: { ...successResponses(operation), ...errorResponses(errorsOf(operation)) },
    ...('static' in operation ? { 'x-static': true } : {}),
  };
}

const json = (schema: z.ZodMiniType, io: 'input' | 'output' = 'output') => ({
  content: { 'application/json': { schema: jsonSchema(schema, io) } },
});

const jsonSchema = (schema: z.ZodMiniType, io: 'input' | 'output') => z.toJSONSchema(schema, { io, unrepresentable: 'any' });

const pathParameters = (path: string) =>
  [...path.matchAll(/\{(\w+)(\+?)\}/g)].map(([, name, greedy]) => ({
    name,
    in: 'path',
    required: true,
    ...(greedy ? { description: 'The rest of the path, slashes included' } : {}),
    schema: { type: 'string' },
  }));

function queryParameters(query: z.ZodMiniObject): object[] {
  const { properties = {}, required = [] } = jsonSchema(query, 'input') as { properties?: Record<string, { description?: string }>; required?: string[] };
  return Object.entries(properties).map(([name, schema]) => ({
    name,
    in: 'query',
    ...(required.includes(name) ? { required: true } : {}),
    ...(schema.description === undefined ? {} : { description: schema.description }),
    schema,
  }));
}

function successResponses(operation: Operation | StaticFile): Record<number, object> {
  const { status, description, schema } = operation.success;
  if (!('static' in operation)) {
    const responses: Record<number, object> = { [status]: { description, ...(schema ? json(schema) : {}) } };
    const also = 'also' in operation.success ? operation.success.also : undefined;
    if (also) responses[also.status] = { description: also.description, ...(also.schema ? json(also.schema) : {}) };
    return responses;
  }
  // The static bucket's own headers, as the rebuild writes them and the CDN serves them.
  const placeholders = Object.fromEntries(pathParameters(operation.path).map(({ name }) => [name!, `{${name}}`]));
  const { contentType, cacheControl } = headersForKey(operation.key(placeholders));
  return {
    200: { description: `${description}; Cache-Control: ${cacheControl}`, content: { [contentType]: schema ? { schema: jsonSchema(schema, 'output') } : {} } },
    304: { description: 'Not modified: the If-None-Match ETag is current' },
  };
}

/** One response per status, naming the codes that share it: branch on `error.code`, not the status. */
function errorResponses(codes: ErrorCode[]): Record<number, object> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(statusOf(code), [...(byStatus.get(statusOf(code)) ?? []), code]);
  const statuses = [...byStatus.keys()].sort((a, b) => a - b);
  return Object.fromEntries(
    statuses.map((status) => {
      const shared = byStatus.get(status)!;
      const body = z.extend(errorBodySchema, { error: z.extend(errorBodySchema.shape.error, { code: z.enum(shared) }) });
      return [status, { description: shared.join(', '), ...json(body) }];
    }),
  );
}
