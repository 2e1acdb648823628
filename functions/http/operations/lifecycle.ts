import { deprecateBodySchema, skillSchema, versionYankSchema, yankBodySchema } from '#core/schemas';
import { operations } from '../operation.ts';

/** Every operation here is the skill's author's, with a session or an API key: 404 for no such skill, 403 for another's. */
const byTheAuthor = { auth: 'sessionOrApiKey', errors: ['not_found', 'forbidden'] } as const;

/** How authors correct the record: yanked versions and deprecated skills (docs/api.md §7.5). */
export const lifecycleOperations = operations(
  {
    name: 'Yank and deprecate',
    description: 'An author withdraws a version (yank) or retires a skill (deprecate); both can be undone, and neither deletes anything.',
  },
  {
    yankVersion: {
      method: 'post',
      path: '/api/skills/{id}/versions/{version}/yank',
      summary: 'Yank a version: never current, never chosen by a range or "latest", still installable by exact version (author only)',
      description:
        'Yanking the current version makes the highest remaining release current. Yanking the last release that is not yanked is a 400. ' +
        'Yanking a yanked version replaces its reason.',
      ...byTheAuthor,
      body: yankBodySchema,
      success: { status: 200, description: 'Yanked', schema: versionYankSchema },
    },
    unyankVersion: {
      method: 'delete',
      path: '/api/skills/{id}/versions/{version}/yank',
      summary: 'Undo a yank; the version becomes current again when it is the highest release (author only)',
      ...byTheAuthor,
      errors: [...byTheAuthor.errors, 'invalid_request'],
      success: { status: 200, description: 'No longer yanked', schema: versionYankSchema },
    },
    deprecateSkill: {
      method: 'post',
      path: '/api/skills/{id}/deprecate',
      summary: 'Deprecate a skill with a message the registry, catalog, site and CLI show (author only)',
      ...byTheAuthor,
      body: deprecateBodySchema,
      success: { status: 200, description: 'Deprecated', schema: skillSchema },
    },
    undeprecateSkill: {
      method: 'delete',
      path: '/api/skills/{id}/deprecate',
      summary: 'Undo a deprecation (author only)',
      ...byTheAuthor,
      success: { status: 200, description: 'No longer deprecated', schema: skillSchema },
    },
  },
);
