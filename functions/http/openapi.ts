import * as z from 'zod';
import * as s from '#core/schemas';

/**
 * The OpenAPI 3.1 document, generated from the same zod schemas that validate requests, so the
 * document cannot drift from what the server accepts.
 */
let cached: object | undefined;

export function openApiDocument(): object {
  cached ??= build();
  return cached;
}

const json = (schema: z.ZodType, io: 'input' | 'output' = 'output') => ({
  content: { 'application/json': { schema: z.toJSONSchema(schema, { io, unrepresentable: 'any' }) } },
});

const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, { description: 'Error', ...json(s.errorBodySchema) }]));

function build(): object {
  return {
    openapi: '3.1.0',
    info: { title: 'Skillpress', version: '1.0.0', description: 'A marketplace for agent skills.' },
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An sk_ API key' },
        session: { type: 'apiKey', in: 'cookie', name: 'skillpress_session' },
      },
    },
    paths: {
      '/api/publish': {
        post: {
          summary: 'Publish a new skill at version 1.0.0',
          security: [{ apiKey: [] }],
          requestBody: { required: true, ...json(s.publishBodySchema, 'input') },
          responses: { 201: { description: 'Created', ...json(s.skillSchema) }, ...errors(400, 401, 409, 413, 415, 429) },
        },
      },
      '/api/skills/{id}/versions': {
        post: {
          summary: 'Publish a new version (author only)',
          security: [{ apiKey: [] }, { session: [] }],
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: { required: true, ...json(s.versionBodySchema, 'input') },
          responses: { 201: { description: 'Created', ...json(s.versionCreatedSchema) }, ...errors(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      '/api/api-keys': {
        post: {
          summary: 'Create an API key; the key is shown once',
          security: [{ session: [] }],
          requestBody: { required: true, ...json(s.apiKeyBodySchema, 'input') },
          responses: { 201: { description: 'Created', ...json(s.apiKeyCreatedSchema) }, ...errors(400, 401, 403, 415) },
        },
        get: {
          summary: "List the caller's API keys",
          security: [{ session: [] }],
          responses: { 200: { description: 'OK', ...json(s.apiKeyListSchema) }, ...errors(401) },
        },
      },
      '/api/api-keys/{id}': {
        delete: {
          summary: 'Revoke an API key',
          security: [{ session: [] }],
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 204: { description: 'Revoked' }, ...errors(401, 403, 404) },
        },
      },
      '/api/auth/dev-login': {
        post: {
          summary: 'Local sign-in (SKILLPRESS_DEV_LOGIN=1 only)',
          requestBody: { required: true, ...json(s.devLoginBodySchema, 'input') },
          responses: { 200: { description: 'Signed in', ...json(z.object({ user: s.userSchema })) }, ...errors(400, 404, 415) },
        },
      },
      '/api/auth/github': {
        get: { summary: 'Start GitHub sign-in: 302 to GitHub with a state cookie', responses: { 302: { description: 'To GitHub' }, ...errors(404) } },
      },
      '/api/auth/github/callback': {
        get: {
          summary: 'Finish GitHub sign-in: 302 to /dashboard/ with a session cookie',
          parameters: [
            { name: 'code', in: 'query', required: true, schema: { type: 'string' } },
            { name: 'state', in: 'query', required: true, schema: { type: 'string' } },
          ],
          responses: { 302: { description: 'Signed in' }, ...errors(400, 404) },
        },
      },
      '/api/me': {
        get: { summary: 'The signed-in user', security: [{ session: [] }], responses: { 200: { description: 'OK', ...json(z.object({ user: s.userSchema })) }, ...errors(401) } },
      },
      '/api/auth/logout': {
        post: { summary: 'Sign out', security: [{ session: [] }], responses: { 204: { description: 'Signed out' }, ...errors(401, 403) } },
      },
      '/api/health': { get: { summary: 'Liveness', responses: { 200: { description: 'OK' } } } },
    },
  };
}
