import type * as z from 'zod/mini';
import type { WireFile } from '#core/bundle';
import type { ClawhubPublishPayload, clawhubPublishedSchema } from '#core/clawhub-publish-schemas';
import { forbidden, invalidRequest, isDomainError } from '#core/errors';
import { publishBodySchema, versionBodySchema } from '#core/schemas';
import { validate } from '#core/validate';
import type { Deps } from '../platform/composition.ts';
import type { Principal } from './authorization.ts';
import { findSkillIdBySlug } from '../store/skills.ts';
import { type Published, publishSkill, publishVersion } from './publishing.ts';

/**
 * `POST /api/v1/skills` (docs/api.md §14): a ClawHub client's publish, as a new skill or a new
 * version of one of the caller's skills, whichever the slug makes it. Both go through the
 * publishing service as our own publish does, with every check it makes (form, sizes, the scan,
 * the rate limit of new skills, authorship). A new skill takes its description and category from
 * its `SKILL.md`, since ClawHub sends neither, and starts at the version the client names.
 *
 * `clawhub` 0.23 sends each file first and publishes JSON naming them (clawhub-upload.ts);
 * `clawdhub` 0.3 sends one multipart form.
 */

export type ClawhubPublished = z.output<typeof clawhubPublishedSchema>;

/** What both publishes carry, once their files are in hand. */
interface Publish {
  slug: string;
  displayName: string;
  version: string;
  changelog: string;
  /** A new skill's category, when the client names one (else its SKILL.md's, else the default). */
  category?: string;
}

export async function publishFromClawhub(
  deps: Deps,
  author: Principal,
  payload: ClawhubPublishPayload | Publish,
  files: WireFile[],
): Promise<Published<ClawhubPublished>> {
  if (files.length === 0) throw invalidRequest("files: send the skill's files, SKILL.md among them", { issues: [{ path: ['files'], message: 'required' }] });
  const existing = await findSkillIdBySlug(deps.db, payload.slug);
  if (existing) return asVersion(deps, author, existing, payload, files);

  // Only a new skill needs its SKILL.md read, and with it a YAML parser: loaded here, not at every cold start.
  const { listingFromSkillFile } = await import('#core/skill-listing');
  const listing = listingFromSkillFile(files);
  if (!listing.description) {
    throw invalidRequest('SKILL.md needs a description in its front matter (one line, at most 1024 characters): a new skill is described by it', {
      issues: [{ path: ['files', 'SKILL.md', 'description'], message: 'required for a new skill' }],
    });
  }
  // Without a category here or in SKILL.md, the publishing service files it as every publish does.
  const category = ('category' in payload ? payload.category : undefined) ?? listing.category;
  const body = validate(publishBodySchema, {
    name: payload.displayName,
    description: listing.description,
    ...(category === undefined ? {} : { category }),
    slug: payload.slug,
    changelog: payload.changelog,
    files,
  });
  try {
    const { result, rate } = await publishSkill(deps, author, body, payload.version);
    return { result: published(result.id, result.slug, payload.version), ...(rate ? { rate } : {}) };
  } catch (error) {
    // The caller's own publish of the same slug got there first: this one is a version of it.
    const mine = isDomainError(error) && error.code === 'slug_taken' ? (error.details as { skillId?: string } | undefined)?.skillId : undefined;
    if (mine) return asVersion(deps, author, mine, payload, files);
    throw error;
  }
}

async function asVersion(deps: Deps, author: Principal, skillId: string, payload: Publish, files: WireFile[]): Promise<Published<ClawhubPublished>> {
  const body = validate(versionBodySchema, { version: payload.version, changelog: payload.changelog, files });
  let rate: Awaited<ReturnType<typeof publishVersion>>['rate'];
  try {
    ({ rate } = await publishVersion(deps, author, skillId, body));
  } catch (error) {
    // Someone else's skill, public or private (then unseen), holds the slug alike: the same answer for both.
    if (isDomainError(error) && (error.code === 'not_found' || error.code === 'forbidden')) {
      throw forbidden(`The slug ${JSON.stringify(payload.slug)} belongs to another skill`);
    }
    throw error;
  }
  return { result: published(skillId, payload.slug, payload.version), ...(rate ? { rate } : {}) };
}

const published = (skillId: string, slug: string, version: string): ClawhubPublished => ({
  ok: true,
  skillId,
  versionId: `${slug}@${version}`,
  slug,
  version,
  publicationStatus: 'published',
});
