import { downloadTokenBodySchema, downloadTokenCreatedSchema, downloadTokenListSchema, grantBodySchema, grantListSchema, grantSchema } from '#core/schemas';
import { operations } from '../operation.ts';

/** Every operation here is the skill's author's, with a session or an API key: 404 for no such skill, 403 for another's. */
const byTheAuthor = { auth: 'sessionOrApiKey', errors: ['not_found', 'forbidden'] } as const;

/** Paid access, managed by the skill's author (docs/api.md §9). */
export const accessOperations = operations(
  { name: 'Paid access', description: "Download tokens and grants that open a paid skill, managed by the skill's author." },
  {
    issueDownloadToken: {
      method: 'post',
      path: '/api/skills/{id}/download-tokens',
      summary: 'Issue a download token for a paid skill; the token is shown once (author only)',
      ...byTheAuthor,
      body: downloadTokenBodySchema,
      success: { status: 201, description: 'Created', schema: downloadTokenCreatedSchema },
    },
    listDownloadTokens: {
      method: 'get',
      path: '/api/skills/{id}/download-tokens',
      summary: "List the skill's download tokens, without their secrets (author only)",
      ...byTheAuthor,
      success: { status: 200, description: 'OK', schema: downloadTokenListSchema },
    },
    withdrawDownloadToken: {
      method: 'delete',
      path: '/api/skills/{id}/download-tokens/{tokenId}',
      summary: 'Revoke a download token; it stops working at once (author only)',
      ...byTheAuthor,
      success: { status: 204, description: 'Revoked' },
    },
    grantAccess: {
      method: 'post',
      path: '/api/skills/{id}/grants',
      summary: "Let a user's session download the skill (author only)",
      ...byTheAuthor,
      body: grantBodySchema,
      success: { status: 201, description: 'Granted', schema: grantSchema },
    },
    listGrants: {
      method: 'get',
      path: '/api/skills/{id}/grants',
      summary: "List the skill's grants (author only)",
      ...byTheAuthor,
      success: { status: 200, description: 'OK', schema: grantListSchema },
    },
    withdrawGrant: {
      method: 'delete',
      path: '/api/skills/{id}/grants/{login}',
      summary: 'Revoke a grant (author only)',
      ...byTheAuthor,
      success: { status: 204, description: 'Revoked' },
    },
  },
);
