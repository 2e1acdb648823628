import { downloadTokenBodySchema, downloadTokenCreatedSchema, downloadTokenListSchema, grantBodySchema, grantListSchema, grantSchema } from '#core/schemas';
import { operations } from '../operation.ts';

/** The skill's author's, with a session or an API key: 404 for no such skill, 403 for another's (all here but issuing a token). */
const byTheAuthor = { auth: 'sessionOrApiKey', errors: ['not_found', 'forbidden'] } as const;

/** Paid access, managed by the skill's author; buyers and granted users mint tokens for themselves (docs/api.md §9). */
export const accessOperations = operations(
  { name: 'Paid access', description: "Download tokens and grants that open a paid skill, managed by the skill's author." },
  {
    issueDownloadToken: {
      method: 'post',
      path: '/api/skills/{id}/download-tokens',
      summary: 'Issue a download token; the token is shown once (the author, or a buyer or granted user for themselves)',
      description:
        "The author's tokens are theirs to hand out. A buyer or a granted user gets a token bound to their own access: it stops working " +
        'when the purchase is refunded or the grant revoked. Anyone else is answered 402.',
      auth: 'sessionOrApiKey',
      errors: ['not_found', 'forbidden', 'payment_required'],
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
