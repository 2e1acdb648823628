import * as z from 'zod';
import { SOURCES } from '#core/install-analytics';
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

const pathId = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });

const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [status, { description: 'Error', ...json(s.errorBodySchema) }]));

/** An operation only a skill's author may call, with a session or an API key. */
const authorOp = (summary: string, ids: string[], success: Record<number, object>, body?: z.ZodType) => ({
  summary: `${summary} (author only)`,
  security: [{ apiKey: [] }, { session: [] }],
  parameters: ids.map(pathId),
  ...(body ? { requestBody: { required: true, ...json(body, 'input') } } : {}),
  responses: { ...success, ...(body ? errors(400, 401, 403, 404, 415) : errors(401, 403, 404)) },
});

function build(): object {
  return {
    openapi: '3.1.0',
    info: { title: 'Skillpress', version: '1.0.0', description: 'A marketplace for agent skills.' },
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An sk_ API key' },
        session: { type: 'apiKey', in: 'cookie', name: 'skillpress_session' },
        downloadToken: { type: 'apiKey', in: 'query', name: 'token', description: 'A download token issued by the author' },
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
      '/api/deliver/{skillId}': {
        get: {
          summary: 'Deliver a version of a skill and count the download (paid: token or entitled session)',
          security: [{}, { downloadToken: [] }, { session: [] }],
          parameters: [
            pathId('skillId'),
            { name: 'version', in: 'query', schema: { type: 'string' }, description: 'exact semver; default the current version' },
            { name: 'source', in: 'query', schema: { type: 'string', enum: [...SOURCES], default: 'api' } },
            { name: 'token', in: 'query', schema: { type: 'string' }, description: 'a download token for this skill (paid skills)' },
          ],
          responses: {
            200: { description: 'The files; Cache-Control: private, no-store', ...json(s.deliverySchema) },
            ...errors(400, 401, 402, 404),
          },
        },
      },
      '/api/skills/{id}/download-tokens': {
        post: authorOp(
          'Issue a download token for a paid skill; the token is shown once',
          ['id'],
          { 201: { description: 'Created', ...json(s.downloadTokenCreatedSchema) } },
          s.downloadTokenBodySchema,
        ),
        get: authorOp("List the skill's download tokens, without their secrets", ['id'], { 200: { description: 'OK', ...json(s.downloadTokenListSchema) } }),
      },
      '/api/skills/{id}/download-tokens/{tokenId}': {
        delete: authorOp('Revoke a download token; it stops working at once', ['id', 'tokenId'], { 204: { description: 'Revoked' } }),
      },
      '/api/skills/{id}/grants': {
        post: authorOp("Let a user's session download the skill", ['id'], { 201: { description: 'Granted', ...json(s.grantSchema) } }, s.grantBodySchema),
        get: authorOp("List the skill's grants", ['id'], { 200: { description: 'OK', ...json(s.grantListSchema) } }),
      },
      '/api/skills/{id}/grants/{login}': {
        delete: authorOp('Revoke a grant', ['id', 'login'], { 204: { description: 'Revoked' } }),
      },
      '/api/analytics/{skillId}': {
        get: {
          summary: 'Install analytics of a skill (session only; author only)',
          security: [{ session: [] }],
          parameters: [pathId('skillId')],
          responses: { 200: { description: 'OK', ...json(s.analyticsSchema) }, ...errors(401, 403, 404) },
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
      '/api/auth/methods': {
        get: {
          summary: 'Which sign-in methods this server offers besides GitHub',
          responses: { 200: { description: 'OK', ...json(z.object({ devLogin: z.boolean() })) } },
        },
      },
      '/api/me': {
        get: {
          summary: 'The signed-in user',
          security: [{ session: [] }],
          responses: { 200: { description: 'OK', ...json(z.object({ user: s.userSchema })) }, ...errors(401) },
        },
      },
      '/api/me/skills': {
        get: {
          summary: "The signed-in author's skills, newest first (session only)",
          security: [{ session: [] }],
          responses: { 200: { description: 'OK', ...json(s.skillListSchema) }, ...errors(401) },
        },
      },
      '/api/auth/logout': {
        post: { summary: 'Sign out', security: [{ session: [] }], responses: { 204: { description: 'Signed out' }, ...errors(401, 403) } },
      },
      '/api/registry/{slug}': {
        get: {
          summary: 'Registry metadata of a skill (a static file behind the CDN)',
          parameters: [pathId('slug')],
          responses: { 200: { description: 'OK', ...json(s.registryDocumentSchema) }, ...errors(404) },
        },
      },
      '/api/registry/{slug}/versions': {
        get: {
          summary: 'Every version of a skill (a static file behind the CDN)',
          parameters: [pathId('slug')],
          responses: { 200: { description: 'OK', ...json(s.versionsDocumentSchema) }, ...errors(404) },
        },
      },
      '/.well-known/skills.json': {
        get: {
          summary: 'The full catalog, sorted by slug (a static file; cached for 5 minutes)',
          responses: { 200: { description: 'OK', ...json(s.catalogDocumentSchema) } },
        },
      },
      '/.well-known/agent-skills/index.json': {
        get: {
          summary: 'Agent Skills discovery index of free skills (a static file)',
          responses: { 200: { description: 'OK', ...json(s.discoveryDocumentSchema) } },
        },
      },
      '/api/health': {
        get: {
          summary: 'Health: ok, or degraded while some skills fail to rebuild',
          description:
            'Always 200 while the service answers. `status` is `degraded` while the rebuild keeps failing for some skills: the API serves, ' +
            'every other skill is rebuilt and indexed, and those skills are retried with backoff, but their static files (registry JSON, ' +
            'bundles, catalog and discovery entries) stay as they were until a retry succeeds. A 503 would take a serving instance out of ' +
            'a load balancer for a fault that no restart repairs. Under `npm start` the local rebuild reports its failures here; on AWS the ' +
            "rebuild Lambda's failed stream records go to its dead-letter queue and alarm instead, and this answers ok.",
          responses: { 200: { description: 'OK or degraded', ...json(s.healthSchema) } },
        },
      },
    },
  };
}
