import { apiKeyBodySchema, apiKeyCreatedSchema, apiKeyListSchema } from '#core/schemas';
import { operations } from '../operation.ts';

/** API keys: created and managed only from a signed-in browser session (docs/api.md §7.3). */
export const apiKeyOperations = operations(
  { name: 'API keys', description: 'Keys for scripts and the CLI, managed only from a browser session.' },
  {
    issueApiKey: {
      method: 'post',
      path: '/api/api-keys',
      summary: 'Create an API key; the key is shown once',
      description:
        'Without scopes, narrowing or expiry a key does everything its owner may, for good. scopes limit what it may be used for ' +
        '(403 insufficient_scope beyond them); org or skills narrow what it reaches; expiresInDays (1 to 365) makes it expire (401 expired_key after).',
      auth: 'session',
      body: apiKeyBodySchema,
      success: { status: 201, description: 'Created', schema: apiKeyCreatedSchema },
      errors: ['not_found', 'forbidden'],
    },
    listApiKeys: {
      method: 'get',
      path: '/api/api-keys',
      summary: "List the caller's API keys",
      auth: 'session',
      success: { status: 200, description: 'OK', schema: apiKeyListSchema },
    },
    withdrawApiKey: {
      method: 'delete',
      path: '/api/api-keys/{id}',
      summary: 'Revoke an API key',
      auth: 'session',
      success: { status: 204, description: 'Revoked' },
      errors: ['not_found'],
    },
  },
);
