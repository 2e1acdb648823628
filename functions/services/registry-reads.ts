import { type ErrorCode, invalidRequest, isDomainError, notFound } from '#core/errors';
import { limits } from '#core/limits';
import { mapLimit } from '#core/map-limit';
import { type PendingDocument, type QuarantinedDocument, type RegistryDocument, registryDocuments, type VersionsDocument } from '#core/registry-document';
import { REGISTRY_MAX_AGE_SECONDS, registryKey, versionsKey } from '#core/static-paths';
import { needsAllVersions, readSkillRequest } from '#core/version-choice';
import type { Deps } from '../platform/composition.ts';
import { getSkillBySlug, listVersions, withRecordedYanks } from '../store/skills.ts';
import { allowSkill, type Principal } from './authorization.ts';

/** The refusal of a slug nobody holds, which a private skill the caller may not see gets too. */
const noSkill = (slug: string) => `No skill ${JSON.stringify(slug.slice(0, 64))}`;

/**
 * `GET /api/me/registry/<slug>` and its `/versions` (docs/api.md §7.13): a skill's registry
 * documents as the caller may see them, read from the table rather than the static files, for
 * any skill: a private one to the members of its organisation (with `read`), a public one to
 * anyone signed in. Anyone else is told `not_found`, in the words and after the reads a slug
 * nobody holds gets, so the answer says nothing of whether a private skill is there.
 */
export async function registryDocumentsFor(
  deps: Pick<Deps, 'db' | 'config'>,
  principal: Principal,
  slug: string,
): Promise<{ registry: RegistryDocument | QuarantinedDocument | PendingDocument; versions: VersionsDocument | QuarantinedDocument | PendingDocument }> {
  const found = await getSkillBySlug(deps.db, slug);
  const { skill } = await allowSkill(deps, principal, found, found?.id ?? slug, 'skill.read', noSkill(slug));
  return registryDocuments(skill, withRecordedYanks(skill, await listVersions(deps.db, skill.id)));
}

/** One skill of a batch resolve: its documents, or the refusal a lookup of it alone would get. */
export type ResolvedSkill = { slug: string; registry: unknown; versions?: unknown } | { slug: string; error: { code: ErrorCode; message: string } };

/** Static reads in flight at once: a batch is at most {@link limits.resolveSkills} small files. */
const READS_AT_ONCE = 16;

/**
 * `GET /api/resolve` (docs/api.md §7.17): for each `slug[@spec]` in `list` (comma-separated),
 * the registry document the per-skill lookup would give, and the versions document too when the
 * spec may choose a version the document does not list. A public skill's are the static files'
 * own; a slug with none is asked of the table for the caller, when the request names one, as
 * `/api/me/registry/<slug>` would be, so a private skill is answered to its members
 * and is, to anyone else, the `not_found` of a slug nobody holds. A bad entry or a refused skill
 * is that entry's error; only a list too long for the limits refuses the whole request.
 */
export async function resolveSkills(deps: Pick<Deps, 'db' | 'config' | 'staticStore'>, caller: Principal | undefined, list: string): Promise<ResolvedSkill[]> {
  const asked = list.split(',');
  if (asked.length > limits.resolveSkills) {
    throw invalidRequest(`At most ${limits.resolveSkills} skills are resolved at once; ${asked.length} were asked for`, {
      issues: [{ path: ['skills'], message: `at most ${limits.resolveSkills} entries` }],
    });
  }
  // A copy read a moment ago is as current as what the CDN may serve for the same path.
  const json = async (key: string) => {
    const bytes = await deps.staticStore.getRecent(key, REGISTRY_MAX_AGE_SECONDS * 1000);
    return bytes === undefined ? undefined : (JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown);
  };
  return mapLimit(asked, READS_AT_ONCE, async (entry): Promise<ResolvedSkill> => {
    const request = readSkillRequest(entry.trim());
    const slug = request.slug.slice(0, 64);
    if ('problem' in request) {
      const message =
        request.problem === 'slug'
          ? `${JSON.stringify(slug)} is not a skill slug (lower-case letters, digits and hyphens)`
          : `${JSON.stringify(request.spec.slice(0, 64))} is neither a version nor a semver range`;
      return { slug, error: { code: 'invalid_request', message } };
    }
    try {
      const registry = await json(registryKey(slug));
      if (registry !== undefined) {
        const versions = needsOlder(registry, request.spec) ? await json(versionsKey(slug)) : undefined;
        return { slug, registry, ...(versions === undefined ? {} : { versions }) };
      }
      if (!caller) throw notFound(noSkill(slug));
      const documents = await registryDocumentsFor(deps, caller, slug);
      return { slug, registry: documents.registry, ...(needsOlder(documents.registry, request.spec) ? { versions: documents.versions } : {}) };
    } catch (error) {
      if (isDomainError(error)) return { slug, error: { code: error.code, message: error.message } };
      throw error;
    }
  });
}

/** Whether a spec may choose a version a registry document does not list (never for a quarantined or pending one: it lists none). */
function needsOlder(document: unknown, spec: string): boolean {
  const { versions, currentVersion } = document as { versions?: unknown; currentVersion?: unknown };
  return Array.isArray(versions) && typeof currentVersion === 'string' && needsAllVersions(spec, versions, currentVersion);
}
