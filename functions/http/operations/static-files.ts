import { bundleDocumentSchema, catalogDocumentSchema, discoveryDocumentSchema, registryDocumentSchema, versionsDocumentSchema } from '#core/schemas';
import { archiveKey, bundleKey, CATALOG_KEY, DISCOVERY_INDEX_KEY, registryKey, skillMdKey, versionsKey } from '#core/static-paths';
import { staticFiles } from '../operation.ts';

/**
 * The static registry (docs/api.md §11): files the rebuild writes to the static bucket and the
 * CDN serves, locally `scripts/local/cdn.ts`. No API code answers them; they are declared here
 * because clients read them.
 */
export const staticFileOperations = staticFiles(
  {
    name: 'Static files',
    description:
      'Files of the static registry, rewritten after each write and served by the CDN: no code runs to answer them. ' +
      'GET and HEAD, no credentials, a strong ETag (304 on If-None-Match), brotli or gzip on request. ' +
      'A path that names nothing is a 404: locally the JSON error, behind the CDN its own.',
  },
  {
    registryDocument: {
      path: '/api/registry/{slug}',
      summary: 'Registry metadata of a skill (a static file behind the CDN)',
      schema: registryDocumentSchema,
      key: ({ slug }) => registryKey(slug!),
      mayBeMissing: true,
    },
    versionsDocument: {
      path: '/api/registry/{slug}/versions',
      summary: 'Every version of a skill (a static file behind the CDN)',
      schema: versionsDocumentSchema,
      key: ({ slug }) => versionsKey(slug!),
      mayBeMissing: true,
    },
    bundle: {
      path: '/bundles/{slug}/{version}.json',
      summary: "A free version's files in canonical form, immutable (a static file behind the CDN)",
      description: "Its SHA-256 is the version's `integrity`. Paid skills have none.",
      schema: bundleDocumentSchema,
      key: ({ slug, version }) => bundleKey(slug!, version!),
      mayBeMissing: true,
    },
    catalog: {
      path: '/.well-known/skills.json',
      summary: 'The full catalog, sorted by slug (a static file behind the CDN)',
      schema: catalogDocumentSchema,
      key: () => CATALOG_KEY,
      mayBeMissing: false,
    },
    discoveryIndex: {
      path: '/.well-known/agent-skills/index.json',
      summary: 'Agent Skills discovery index of free skills (a static file behind the CDN)',
      schema: discoveryDocumentSchema,
      key: () => DISCOVERY_INDEX_KEY,
      mayBeMissing: false,
    },
    archive: {
      path: '/.well-known/agent-skills/{slug}/{version}.tar.gz',
      summary: "A free skill's current version as a deterministic .tar.gz, immutable (a static file behind the CDN)",
      description: "Named by the discovery index, whose `digest` is the archive's hex SHA-256.",
      key: ({ slug, version }) => archiveKey(slug!, version!),
      mayBeMissing: true,
    },
    skillMd: {
      path: '/.well-known/agent-skills/{slug}/{version}/SKILL.md',
      summary: "A free skill's current version when it is its SKILL.md alone, immutable (a static file behind the CDN)",
      description: 'Named by the discovery index as `type: "skill-md"`, whose `digest` is the file\'s hex SHA-256.',
      key: ({ slug, version }) => skillMdKey(slug!, version!),
      mayBeMissing: true,
    },
  },
);
