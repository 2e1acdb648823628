import * as z from 'zod/mini';
import { importBodySchema, importResultSchema, importsSchema } from '#core/schemas';
import { operations } from '../operation.ts';
import { lazySchema } from '#core/lazy-schema';

/** What reading GitHub and publishing each folder can answer for the whole import. */
const importErrors = ['not_found', 'not_repo_owner', 'github_unavailable', 'imports_unavailable', 'invalid_skill', 'payload_too_large'] as const;

/** GitHub imports: a repository's skill folders published, and kept in sync by its webhook (docs/api.md §7.16). */
export const importOperations = operations(
  {
    name: 'GitHub imports',
    description: "A GitHub repository's skill folders, published in one step and again on every push to the tracked branch or tag.",
  },
  {
    createImport: {
      method: 'post',
      path: '/api/imports',
      summary: 'Import a GitHub repository you own: publish every skill folder in it, and keep it in sync',
      description:
        'Reads the tree at the commit ref names (default: the default branch), finds every folder with a SKILL.md (six levels down at most, ' +
        'not in dot-folders or node_modules) and publishes each as POST /api/publish and POST /api/skills/{id}/versions would: a new skill at 1.0.0, ' +
        'a new version where the files changed (metadata.version, else the patch bumped), nothing where they did not. Links inside a folder are ' +
        'followed; one pointing outside refuses that folder. Only the repository owner, or a member of the organisation that owns it, may import it. ' +
        'The webhook secret is in the answer that creates the import only.',
      auth: 'sessionOrApiKey',
      body: importBodySchema,
      success: {
        status: 201,
        description: 'Imported: a new import, each folder with what happened to it, and the webhook secret',
        schema: importResultSchema,
        also: { status: 200, description: 'The same import made before, synced (no webhook secret)', schema: importResultSchema },
      },
      errors: ['forbidden', 'insufficient_scope', ...importErrors],
    },
    listImports: {
      method: 'get',
      path: '/api/imports',
      summary: 'Your imports, oldest first',
      auth: 'sessionOrApiKey',
      success: { status: 200, description: 'OK', schema: importsSchema },
      errors: ['insufficient_scope'],
    },
    syncImport: {
      method: 'post',
      path: '/api/imports/{id}/sync',
      summary: 'Import again now ("sync now"), as a push to the tracked ref would',
      auth: 'sessionOrApiKey',
      success: { status: 200, description: 'Synced: each folder with what happened to it', schema: importResultSchema },
      errors: ['insufficient_scope', ...importErrors],
    },
    importWebhook: {
      method: 'post',
      path: '/api/imports/{id}/webhook',
      summary: "Receive GitHub's push event, verified by its X-Hub-Signature-256",
      description:
        "For GitHub only. The signature (HMAC-SHA256 of the exact body with the import's secret) is checked before anything else; a missing or wrong one " +
        'is a 401 and changes nothing. A push (X-GitHub-Event: push) to the tracked ref imports again (202); a ping, another event or another ref is a 204.',
      auth: 'none',
      rawBody: lazySchema(() => z.object({ ref: z.string() }).check(z.describe("GitHub's push event (or another event, which is acknowledged and ignored)"))),
      success: {
        status: 202,
        description: 'A push to the tracked ref: imported again',
        schema: importResultSchema,
        also: { status: 204, description: 'Another event or another ref: nothing done' },
      },
      errors: ['unauthenticated', ...importErrors],
    },
  },
);
