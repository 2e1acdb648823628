import { deliverQuerySchema, deliverySchema } from '#core/schemas';
import { operations } from '../operation.ts';

/** Counted delivery of a version's files (docs/api.md §9.3, §10). */
export const deliveryOperations = operations(
  { name: 'Delivery', description: "A version's files, each answer counted as one install." },
  {
    deliver: {
      method: 'get',
      path: '/api/deliver/{skillId}',
      summary: 'Deliver a version of a skill and count the download (paid: token or entitled session)',
      description:
        'Free skills need no credentials. A paid skill is delivered to its author, to a user it is granted to, or with a valid `?token=`; ' +
        'a token that does not open it is a 401, no entitlement at all a 402. A quarantined skill is a 403 for everyone. A HEAD is not counted. ' +
        "A delivery too large for a response (over 6,000,000 bytes as a JSON string) is a 303, counted the same: to the version's bundle for a free public skill, " +
        'else to a pre-signed link of the delivery that works for a minute. A HEAD of one is the 303 without a Location when only a link reaches it.',
      auth: 'downloadTokenOrSession',
      query: deliverQuerySchema,
      success: {
        status: 200,
        description: 'The files; Cache-Control: private, no-store',
        schema: deliverySchema,
        also: {
          status: 303,
          description: 'A large delivery: Location is its bundle (`{files}`) or a link to this answer, good for a minute (none for a HEAD)',
        },
      },
      errors: ['invalid_request', 'unauthenticated', 'payment_required', 'not_found', 'quarantined'],
    },
  },
);
