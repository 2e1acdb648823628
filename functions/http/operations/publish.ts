import {
  publishBodySchema,
  publishedSkillSchema,
  skillSchema,
  skillUpdateBodySchema,
  transferBodySchema,
  versionBodySchema,
  versionCreatedSchema,
  versionBehaviourSchema,
} from '#core/schemas';
import { skillCheckBodySchema, skillCheckSchema } from '#core/skill-check';
import { operations } from '../operation.ts';

/** What a new skill's publish can answer, whichever credential brings it. */
const NEW_SKILL_ERRORS = [
  'invalid_request',
  'invalid_skill',
  'payload_too_large',
  'not_found',
  'forbidden',
  'insufficient_scope',
  'slug_taken',
  'slug_too_similar',
  'name_too_similar',
  'content_rejected',
  'rate_limited',
] as const;

/** Publishing skills and their versions (docs/api.md §7.4, §8). */
export const publishingOperations = operations(
  { name: 'Publishing', description: 'New skills and new versions of them; published versions are immutable.' },
  {
    publishSkill: {
      method: 'post',
      path: '/api/publish',
      summary: 'Publish a new skill at version 1.0.0',
      description:
        'Rate limited per author: a success carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset, a 429 also Retry-After. ' +
        'Location names the registry document. The files must be a valid Agent Skill (400 invalid_skill); without files a conforming SKILL.md is written. ' +
        "A slug that reads like another author's skill with 100 installs or more is a 409 slug_too_similar, a name that reads the same as its name a 409 name_too_similar. " +
        'Every version is scanned (docs/scanning.md): the answer carries the scan, ' +
        'and a malicious verdict is a 422 content_rejected with details.findings, storing nothing and spending no slot.',
      auth: 'apiKey',
      body: publishBodySchema,
      success: { status: 201, description: 'Created', schema: publishedSkillSchema },
      errors: NEW_SKILL_ERRORS,
    },
    createSkill: {
      method: 'post',
      path: '/api/skills',
      summary: 'Publish a new skill at version 1.0.0, from a session or an API key (the web upload)',
      description:
        'POST /api/publish for a signed-in browser: the same body, checks, rate limit and answer; a session write carries the Origin rule. ' +
        'POST /api/publish itself stays an API key only.',
      auth: 'sessionOrApiKey',
      body: publishBodySchema,
      success: { status: 201, description: 'Created', schema: publishedSkillSchema },
      errors: NEW_SKILL_ERRORS,
    },
    checkSkillFiles: {
      method: 'post',
      path: '/api/skills/check',
      summary: "Judge a folder's files as publishing them would, storing nothing: the listing, conformance problems with their lines, the scan and the effects",
      description:
        'A new version when the SKILL.md names a skill the caller may publish versions of (with a suggested version), else a new skill. ' +
        "The request's own refusals are those of the publish (404, 403, 409 slug_taken / slug_too_similar / name_too_similar, 403 quarantined); " +
        "the files' problems and a malicious verdict are in the answer. Spends no publish slot; checks have their own rate limit (RateLimit-* headers, 429).",
      auth: 'sessionOrApiKey',
      body: skillCheckBodySchema,
      success: { status: 200, description: 'What publishing the files would meet', schema: skillCheckSchema },
      errors: [
        'invalid_request',
        'payload_too_large',
        'not_found',
        'forbidden',
        'insufficient_scope',
        'quarantined',
        'slug_taken',
        'slug_too_similar',
        'name_too_similar',
        'version_exists',
        'rate_limited',
      ],
    },
    publishVersion: {
      method: 'post',
      path: '/api/skills/{id}/versions',
      summary: 'Publish a new version (author only)',
      description:
        'A quarantined skill takes no new version (403 quarantined). The version is scanned: the answer carries the scan, and a malicious verdict is a 422 content_rejected with details.findings. ' +
        'Rate limited per author (new versions of all their skills together): a success carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset, a 429 also Retry-After.',
      auth: 'publisher',
      body: versionBodySchema,
      success: { status: 201, description: 'Created', schema: versionCreatedSchema },
      errors: [
        'invalid_request',
        'invalid_skill',
        'not_found',
        'forbidden',
        'insufficient_scope',
        'quarantined',
        'payload_too_large',
        'version_exists',
        'content_rejected',
        'rate_limited',
      ],
    },
    versionBehaviour: {
      method: 'get',
      path: '/api/skills/{id}/versions/{version}/behaviour',
      summary: 'How a version fared when run in the sandbox: pending, cleared or refused, its effects and the evidence (those who may publish its versions)',
      description:
        'A version with anything to run is pending from its publish until its run in the sandbox ends; a refused version is never installed, and its evidence says why. ' +
        'An author whose version was refused asks for review with POST /api/appeals.',
      auth: 'sessionOrApiKey',
      success: { status: 200, description: "The version's behaviour", schema: versionBehaviourSchema },
      errors: ['invalid_request', 'not_found', 'forbidden', 'insufficient_scope'],
    },
    updateSkill: {
      method: 'patch',
      path: '/api/skills/{id}',
      summary: "Set or remove a paid skill's price; make a private skill public (the author, or the organisation's owners)",
      description:
        '`{"price": {"amount": 999, "currency": "EUR"}}` puts the skill on sale at that price; `{"price": null}` takes it off sale. A free skill has no price (400). ' +
        '`{"visibility": "public"}` makes a private skill public: its static files appear at the next rebuild. A public skill never becomes private (409 visibility_locked); a private one whose versions depend on a private skill stays private until that one is public (409 private_dependency).',
      auth: 'sessionOrApiKey',
      body: skillUpdateBodySchema,
      success: { status: 200, description: 'The skill as it is now', schema: skillSchema },
      errors: ['invalid_request', 'not_found', 'forbidden', 'insufficient_scope', 'visibility_locked', 'private_dependency'],
    },
    transferSkill: {
      method: 'post',
      path: '/api/skills/{id}/transfer',
      summary: 'Move a skill into an organisation (its author, into one they maintain; an owner of both, between organisations)',
      description: 'The slug never changes; the registry, the catalog and the site name the new owner after the next rebuild.',
      auth: 'sessionOrApiKey',
      body: transferBodySchema,
      success: { status: 200, description: 'The skill, with its new owner', schema: skillSchema },
      errors: ['invalid_request', 'not_found', 'forbidden', 'insufficient_scope'],
    },
  },
);
