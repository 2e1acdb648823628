import { oidcExchangeAnswerSchema, oidcExchangeBodySchema, trustedPublisherBodySchema, trustedPublisherSchema, trustedPublishersSchema } from '#core/schemas';
import { operations } from '../operation.ts';

/** Trusted publishing: the CI workflows a skill trusts, and the OIDC exchange they publish through (docs/api.md §7.14). */
export const trustedPublishingOperations = operations(
  {
    name: 'Trusted publishing',
    description: 'CI workflows that publish without a stored key: a skill trusts them, they exchange an OIDC token for a 15-minute publish token.',
  },
  {
    addTrustedPublisher: {
      method: 'post',
      path: '/api/skills/{id}/trusted-publishers',
      summary: "Trust a CI workflow to publish the skill's versions (its owning side: author, owners and maintainers)",
      description:
        'provider github, repository owner/repo, workflow the file name under .github/workflows/, environment optional. ' +
        'The same workflow added again answers the one already there. At most 20 per skill.',
      auth: 'sessionOrApiKey',
      body: trustedPublisherBodySchema,
      success: { status: 201, description: 'Trusted', schema: trustedPublisherSchema },
      errors: ['not_found', 'forbidden', 'insufficient_scope'],
    },
    listTrustedPublishers: {
      method: 'get',
      path: '/api/skills/{id}/trusted-publishers',
      summary: "The skill's trusted publishers",
      auth: 'sessionOrApiKey',
      success: { status: 200, description: 'OK', schema: trustedPublishersSchema },
      errors: ['not_found', 'forbidden', 'insufficient_scope'],
    },
    removeTrustedPublisher: {
      method: 'delete',
      path: '/api/skills/{id}/trusted-publishers/{publisherId}',
      summary: 'Stop trusting a workflow (publish tokens it already holds run out within 15 minutes)',
      auth: 'sessionOrApiKey',
      success: { status: 204, description: 'Removed' },
      errors: ['not_found', 'forbidden', 'insufficient_scope'],
    },
    exchangeOidcToken: {
      method: 'post',
      path: '/api/oidc/exchange',
      summary: "Exchange a CI's OIDC ID token for a 15-minute publish token (spt_)",
      description:
        "The token is verified against the issuer's keys: iss, aud (this registry's origin), exp, nbf and iat with 60 s of skew, a jti never exchanged before, " +
        'and repository, job_workflow_ref and environment matching a trusted publisher. Anything wrong is 401 invalid_oidc_token naming the claim in details.claim. ' +
        'The publish token publishes new versions of the skills that trust the workflow, as Authorization: Bearer spt_…, each recording the provenance the claims give.',
      auth: 'none',
      body: oidcExchangeBodySchema,
      success: { status: 200, description: 'Exchanged', schema: oidcExchangeAnswerSchema },
      errors: ['invalid_oidc_token'],
    },
  },
);
