import { type PendingDocument, type QuarantinedDocument, type RegistryDocument, registryDocuments, type VersionsDocument } from '#core/registry-document';
import type { Deps } from '../platform/composition.ts';
import { getSkillBySlug, listVersions, withRecordedYanks } from '../store/skills.ts';
import { allowSkill, type Principal } from './authorization.ts';

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
  const { skill } = await allowSkill(deps, principal, found, found?.id ?? slug, 'skill.read', `No skill ${JSON.stringify(slug.slice(0, 64))}`);
  return registryDocuments(skill, withRecordedYanks(skill, await listVersions(deps.db, skill.id)));
}
