import { analyticsSchema } from '#core/schemas';
import { operations } from '../operation.ts';

/** Install analytics for the author's dashboard (docs/api.md §10.3). */
export const analyticsOperations = operations(
  { name: 'Analytics', description: "Install counts of a skill, for its author's dashboard." },
  {
    installAnalytics: {
      method: 'get',
      path: '/api/analytics/{skillId}',
      summary: 'Install analytics of a skill (session only; author only)',
      auth: 'session',
      success: { status: 200, description: 'OK', schema: analyticsSchema },
      errors: ['not_found', 'forbidden'],
    },
  },
);
