import { downloadTokenBodySchema, downloadTokenCreatedSchema, downloadTokenListSchema, grantBodySchema, grantListSchema, grantSchema } from '#core/schemas';
import { operations } from '../operation.ts';

/** Paid access, managed by the skill's author with a session or an API key (docs/api.md §9). */
export const accessOperations = operations(
  { name: 'Paid access', description: "Download tokens and grants that open a paid skill, managed by the skill's author." },
  {
    issueDownloadToken: {
      method: 'post',
      path: '/api/skills/{id}/download-tokens',
      summary: 'Issue a download token for a paid skill; the token is shown once (author only)',
      auth: 'sessionOrApiKey',
      body: downloadTokenBodySchema,
      success: { status: 201, description: 'Created', schema: downloadTokenCreatedSchema },
      errors: ['not_found', 'forbidden'],
    },
    listDownloadTokens: {
      method: 'get',
      path: '/api/skills/{id}/download-tokens',
      summary: "List the skill's download tokens, without their secrets (author only)",
      auth: 'sessionOrApiKey',
      success: { status: 200, description: 'OK', schema: downloadTokenListSchema },
      errors: ['not_found', 'forbidden'],
    },
    withdrawDownloadToken: {
      method: 'delete',
      path: '/api/skills/{id}/download-tokens/{tokenId}',
      summary: 'Revoke a download token; it stops working at once (author only)',
      auth: 'sessionOrApiKey',
      success: { status: 204, description: 'Revoked' },
      errors: ['not_found', 'forbidden'],
    },
    grantAccess: {
      method: 'post',
      path: '/api/skills/{id}/grants',
      summary: "Let a user's session download the skill (author only)",
      auth: 'sessionOrApiKey',
      body: grantBodySchema,
      success: { status: 201, description: 'Granted', schema: grantSchema },
      errors: ['not_found', 'forbidden'],
    },
    listGrants: {
      method: 'get',
      path: '/api/skills/{id}/grants',
      summary: "List the skill's grants (author only)",
      auth: 'sessionOrApiKey',
      success: { status: 200, description: 'OK', schema: grantListSchema },
      errors: ['not_found', 'forbidden'],
    },
    withdrawGrant: {
      method: 'delete',
      path: '/api/skills/{id}/grants/{login}',
      summary: 'Revoke a grant (author only)',
      auth: 'sessionOrApiKey',
      success: { status: 204, description: 'Revoked' },
      errors: ['not_found', 'forbidden'],
    },
  },
);
