import {
  adminAppealDetailSchema,
  adminAppealListSchema,
  adminAppealSchema,
  appealBodySchema,
  appealFiledSchema,
  appealListSchema,
  declineBodySchema,
} from '#core/appeals';
import { operations } from '../operation.ts';

/** Appeals of refused versions, and the admins' decisions on them (docs/api.md §7.15). */
export const appealOperations = operations(
  {
    name: 'Appeals',
    description:
      'An author whose version the scan refuses (or flags) sends it again with a message; it waits, private and unpublished, until an admin approves it (published as sent, its scan marked reviewed) or declines it.',
  },
  {
    fileAppeal: {
      method: 'post',
      path: '/api/appeals',
      summary: 'Appeal a version the scan refuses or flags: {message, publish} for a new skill, {message, skillId, version} for a new version',
      description:
        'Every check of the publish it stands for applies (who may publish it, the slug, the version, dependencies, conformance, the rate limit of that publish), except the verdict. ' +
        'A version the scan finds clean is a 400: publish it. At most 5 appeals of an author wait at once (409 too_many_appeals). ' +
        'The files are kept privately for the admins; nothing is published until one approves it.',
      auth: 'sessionOrApiKey',
      body: appealBodySchema,
      success: { status: 201, description: 'Filed, waiting for an admin', schema: appealFiledSchema },
      errors: [
        'invalid_request',
        'invalid_skill',
        'payload_too_large',
        'not_found',
        'forbidden',
        'insufficient_scope',
        'quarantined',
        'slug_taken',
        'slug_too_similar',
        'name_too_similar',
        'version_exists',
        'too_many_appeals',
        'rate_limited',
      ],
    },
    myAppeals: {
      method: 'get',
      path: '/api/appeals',
      summary: "The caller's appeals, newest first, with their outcome",
      auth: 'sessionOrApiKey',
      success: { status: 200, description: 'OK', schema: appealListSchema },
      errors: ['insufficient_scope'],
    },
    pendingAppeals: {
      method: 'get',
      path: '/api/admin/appeals',
      summary: 'The pending appeals, oldest first (admins)',
      auth: 'session',
      success: { status: 200, description: 'OK', schema: adminAppealListSchema },
      errors: ['forbidden'],
    },
    appealForReview: {
      method: 'get',
      path: '/api/admin/appeals/{id}',
      summary: "One appeal with its files' contents, to review (admins)",
      auth: 'session',
      success: { status: 200, description: 'OK', schema: adminAppealDetailSchema },
      errors: ['forbidden', 'not_found'],
    },
    approveAppeal: {
      method: 'post',
      path: '/api/admin/appeals/{id}/approve',
      summary: 'Approve an appeal: publish the skill or version exactly as sent, its scan carrying reviewed {by, at} (admins)',
      description:
        'It counts against no rate limit. When the publish fails now (the slug was taken meanwhile, the version exists, the author may no longer publish there), the answer is that error and the appeal stays pending.',
      auth: 'session',
      success: { status: 200, description: 'Approved and published', schema: adminAppealSchema },
      errors: [
        'forbidden',
        'not_found',
        'appeal_decided',
        'invalid_skill',
        'insufficient_scope',
        'quarantined',
        'slug_taken',
        'slug_too_similar',
        'version_exists',
      ],
    },
    declineAppeal: {
      method: 'post',
      path: '/api/admin/appeals/{id}/decline',
      summary: 'Decline an appeal, telling its author why (admins)',
      auth: 'session',
      body: declineBodySchema,
      success: { status: 200, description: 'Declined', schema: adminAppealSchema },
      errors: ['forbidden', 'not_found', 'appeal_decided'],
    },
  },
);
