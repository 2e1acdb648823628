import type * as z from 'zod/mini';
import type { CatalogEntry } from '#core/catalog';
import { clawhubModeration, clawhubSkill, clawhubUser, clawhubVersion } from '#core/clawhub-documents';
import { pageByDate, refuseCursorByInstalls, topByInstalls } from '#core/clawhub-listing';
import type {
  ClawhubSort,
  clawhubResolveSchema,
  clawhubSearchSchema,
  clawhubSkillListSchema,
  clawhubSkillPageSchema,
  clawhubVersionListSchema,
  clawhubVersionPageSchema,
} from '#core/clawhub-schemas';
import { byFilename } from '#core/bundle';
import { DomainError, invalidRequest, notFound } from '#core/errors';
import { byPublishedDesc } from '#core/registry-document';
import { ANONYMOUS, canSee, isPublicListing, ownerOf, skillResource } from '#core/policy';
import { isStrictVersion } from '#core/semver-order';
import { defaultOfSkill } from '#core/version-behaviour';
import { contentTypeOf } from '#core/static-paths';
import { getBlob } from '../content/blobs.ts';
import { type CatalogSnapshot, catalogSnapshot } from '../content/catalog-reader.ts';
import type { Deps } from '../platform/composition.ts';
import { distinctInstallTotals } from '../store/downloads.ts';
import {
  getSkillAndFingerprintBySlug,
  getSkillBySlug,
  getSkills,
  getVersion,
  getVersions,
  listVersions,
  type SkillItem,
  standInSkill,
  withRecordedYanks,
} from '../store/skills.ts';
import { getUser } from '../store/users.ts';

/**
 * The reads of the ClawHub-compatible API (docs/api.md §14): what `clawdhub search`, `explore`,
 * `install` and `update` ask. Lists and searches cover the free skills, as the Agent Skills
 * discovery index does: a ClawHub client cannot pay, and a paid skill's download is a 402.
 */

const SEARCH_RESULTS = 20;
const PAGE_SIZE = 25;

const catalog = (deps: Deps): Promise<CatalogSnapshot> => catalogSnapshot(deps.staticStore);

/**
 * `GET /api/v1/search`: the free skills that match `q`, best first, as `GET /api/search` and the
 * site rank them. The search engine is loaded on the first search this process serves: the
 * ClawHub Lambda's other routes (lists, installs) never need it at their cold start.
 */
export async function clawhubSearch(deps: Deps, query: { q?: string; limit?: number }): Promise<z.output<typeof clawhubSearchSchema>> {
  if (!query.q?.trim()) return { results: [] };
  const { searchSkills } = await import('./search.ts');
  const { skills } = await searchSkills(deps, { q: query.q, paid: false, limit: query.limit ?? SEARCH_RESULTS });
  return {
    results: skills.map((entry, rank) => ({
      slug: entry.slug,
      displayName: entry.name,
      summary: entry.description,
      version: entry.currentVersion,
      score: (skills.length - rank) / skills.length,
      updatedAt: Date.parse(entry.updatedAt),
      ownerHandle: entry.author,
      owner: { handle: entry.author, displayName: null, image: null },
    })),
  };
}

/** Orders ClawHub knows that have no counterpart here, and why. */
const UNRANKED: Partial<Record<ClawhubSort, string>> = {
  stars: 'Skillpress has no stars',
  rating: 'Skillpress has no ratings',
  trending: 'Skillpress does not rank by trend',
};

/**
 * `GET /api/v1/skills`: a page of free skills, newest first with a cursor, or the most installed
 * (one page, as ClawHub's registry gives). Each entry is read fresh (META, its current version,
 * its installs) in batched reads; the catalog only says which skills there are, in what order.
 */
export async function listSkills(deps: Deps, query: { limit?: number; cursor?: string; sort?: ClawhubSort }): Promise<z.output<typeof clawhubSkillListSchema>> {
  const sort = query.sort ?? 'updated';
  const unranked = UNRANKED[sort];
  if (unranked) throw new DomainError('not_supported', `${unranked}: sort by updated, downloads or installs`);
  const limit = query.limit ?? PAGE_SIZE;
  const entries = (await catalog(deps)).free;
  let page: CatalogEntry[];
  let nextCursor: string | null = null;
  let installs: Map<string, number>;
  if (sort === 'updated' || sort === 'createdAt') {
    ({ page, nextCursor } = pageByDate(entries, sort, limit, query.cursor));
    installs = await distinctInstallTotals(
      deps.db,
      page.map((entry) => entry.id),
    );
  } else {
    refuseCursorByInstalls(query.cursor);
    installs = await distinctInstallTotals(
      deps.db,
      entries.map((entry) => entry.id),
    );
    page = topByInstalls(entries, (entry) => installs.get(entry.id) ?? 0, limit);
  }
  const skills = new Map(
    (
      await getSkills(
        deps.db,
        page.map((entry) => entry.id),
      )
    ).map((skill) => [skill.id, skill]),
  );
  // A skill quarantined or sold since the catalog was written is left out until it is rewritten.
  // And one whose first version is still being observed: ClawHub's latest is the newest cleared version.
  const listed = page
    .map((entry) => skills.get(entry.id))
    .filter((skill): skill is SkillItem => skill !== undefined && isPublicListing(skill) && !skill.paid && defaultOfSkill(skill) !== null);
  const versions = new Map(
    (
      await getVersions(
        deps.db,
        listed.map((skill) => ({ skillId: skill.id, version: defaultOfSkill(skill)! })),
      )
    ).map((version) => [version.skillId, version]),
  );
  const items = listed.flatMap((skill) => {
    const version = versions.get(skill.id);
    return version ? [{ ...clawhubSkill(skill, installs.get(skill.id) ?? 0), latestVersion: clawhubVersion(version) }] : [];
  });
  return { items, nextCursor };
}

/**
 * `GET /api/v1/skills/{slug}`: the skill, its current version, its author, and our scan of that
 * version in ClawHub's moderation fields (what `clawhub install` and `update` read before they
 * download). Paid skills too: they are listed publicly.
 */
export async function skillPage(deps: Deps, slug: string, ownerHandle?: string): Promise<z.output<typeof clawhubSkillPageSchema>> {
  const skill = await skillBySlug(deps, slug, ownerHandle);
  const [version, author, installs] = await Promise.all([
    getVersion(deps.db, skill.id, latestOf(skill)),
    getUser(deps.db, skill.authorId),
    distinctInstallTotals(deps.db, [skill.id]),
  ]);
  if (!version) throw notFound('Version not found');
  return {
    skill: clawhubSkill(skill, installs.get(skill.id) ?? 0),
    latestVersion: clawhubVersion(version),
    owner: clawhubUser(author ?? { login: skill.authorLogin }),
    moderation: clawhubModeration(version, version.scannedAt ?? version.publishedAt),
  };
}

/**
 * `GET /api/v1/resolve`: which version of the skill has the fingerprint `hash` of an installed
 * folder (core/clawhub-fingerprint.ts), in one read of the item its publish recorded
 * (store/fingerprints.ts): two reads in all, whatever the hash and however many versions the
 * skill has. A hash no item names matches nothing; a skill with no cleared version yet has no
 * latest (`null`), rather than the 409 its other reads answer.
 */
export async function resolveVersion(deps: Deps, slug: string, hash: string, ownerHandle?: string): Promise<z.output<typeof clawhubResolveSchema>> {
  const found = await getSkillAndFingerprintBySlug(deps.db, normaliseSlug(slug), hash);
  const skill = available(found.skill, ownerHandle);
  // A new skill whose first version is being observed has no latest yet: ClawHub's answer for a
  // skill with nothing installable, on which `clawhub sync` and `update` go on to the next skill.
  const latest = defaultOfSkill(skill);
  return { slug: skill.slug, match: found.version ? { version: found.version } : null, latestVersion: latest === null ? null : { version: latest } };
}

/**
 * ClawHub's latest version of a skill: the one installed by default, the newest cleared release
 * (core/version-behaviour.ts), never one being observed; 409 `being_observed` while a new
 * skill's first version is.
 */
function latestOf(skill: SkillItem): string {
  const found = defaultOfSkill(skill);
  if (found !== null) return found;
  throw new DomainError('being_observed', `${skill.slug}@${skill.currentVersion} is being run in the sandbox before anyone installs it by default`, {
    version: skill.currentVersion,
  });
}

/**
 * The skill a ClawHub path or query names, by slug and, when the client gives one, its owner's
 * handle: 404 `Skill not found` (ClawHub's words, which its clients look for) when none, or a
 * private one (ClawHub's clients show no credentials, and a private skill is as unknown to them
 * as a missing one, in as many reads); 403 `quarantined` when it is.
 */
export async function skillBySlug(deps: Deps, slug: string, ownerHandle?: string): Promise<SkillItem> {
  return available(await getSkillBySlug(deps.db, normaliseSlug(slug)), ownerHandle);
}

function available(skill: SkillItem | undefined, ownerHandle: string | undefined): SkillItem {
  // A missing skill is weighed as a hidden one (standInSkill), on the same path to the same 404.
  const weighed = skill ?? standInSkill();
  if (!canSee(ANONYMOUS, skillResource(weighed)) || !skill || !ownedBy(skill, ownerHandle)) throw notFound('Skill not found');
  if (skill.quarantine) throw new DomainError('quarantined', `${skill.slug} is quarantined after reports or a scan; it cannot be installed`);
  return skill;
}

/**
 * Whether `handle` (ClawHub's owner handle, `@` optional, any case) names the skill's owner or its
 * author (an organisation's skill is listed under its author's handle too); no handle names anyone.
 */
function ownedBy(skill: SkillItem, handle: string | undefined): boolean {
  const named = handle?.trim().replace(/^@+/, '').toLowerCase();
  return !named || named === ownerOf(skill).login.toLowerCase() || named === skill.authorLogin.toLowerCase();
}

/** ClawHub's registry reads slugs trimmed and in lower case; so do we. */
export const normaliseSlug = (slug: string) => slug.trim().toLowerCase();

/**
 * `GET /api/v1/skills/{slug}/versions` (`clawhub inspect --versions`): every version but the
 * yanked ones, newest published first, paged by a cursor naming the last version of the page.
 */
export async function versionList(
  deps: Deps,
  slug: string,
  query: { ownerHandle?: string; limit?: number; cursor?: string },
): Promise<z.output<typeof clawhubVersionListSchema>> {
  const skill = await skillBySlug(deps, slug, query.ownerHandle);
  const versions = withRecordedYanks(skill, await listVersions(deps.db, skill.id))
    .filter((v) => !v.yanked)
    .sort(byPublishedDesc);
  const start = query.cursor === undefined ? 0 : versions.findIndex((v) => versionCursor(v.version) === query.cursor) + 1;
  if (start === 0 && query.cursor !== undefined)
    throw invalidRequest('Invalid cursor format', { issues: [{ path: ['cursor'], message: 'not a cursor this API gave' }] });
  const limit = query.limit ?? PAGE_SIZE;
  const page = versions.slice(start, start + limit);
  const more = start + limit < versions.length;
  return {
    items: page.map((v) => {
      const { version, createdAt, changelog } = clawhubVersion(v);
      return { version, createdAt, changelog };
    }),
    nextCursor: more ? versionCursor(page.at(-1)!.version) : null,
  };
}

/**
 * `GET /api/v1/skills/{slug}/file` (`clawhub inspect --file`): one text file of a free skill's
 * version, the current one by default. A paid skill's content is for its buyers, through the
 * delivery (402 here); a file that is not UTF-8 text is not shown (415).
 */
export async function skillFileText(deps: Deps, slug: string, query: { ownerHandle?: string; path: string; version?: string; tag?: string }): Promise<string> {
  if (query.tag !== undefined && query.tag !== 'latest') throw new DomainError('not_supported', 'Skillpress has no tags but latest');
  const skill = await skillBySlug(deps, slug, query.ownerHandle);
  if (skill.paid)
    throw new DomainError('payment_required', `${skill.slug} is a paid skill: its files are for its buyers (skillpress install with your API key)`);
  const version = query.version ?? latestOf(skill);
  const item = isStrictVersion(version) ? await getVersion(deps.db, skill.id, version) : undefined;
  if (!item) throw notFound('Version not found');
  const file = item.files.find((f) => f.filename === query.path);
  if (!file) throw notFound('File not found');
  if (file.encoding === 'base64') throw new DomainError('unsupported_media_type', `${file.filename} is not a text file`);
  return new TextDecoder().decode(await getBlob(deps.blobs, file.sha256));
}

const versionCursor = (version: string) => Buffer.from(version, 'utf8').toString('base64url');

/**
 * `GET /api/v1/skills/{slug}/versions/{version}` (`clawhub install --version`, `inspect
 * --version/--files`): one version and its files' names, sizes and digests (no content). A
 * yanked version is still answered, as it is still installable by its exact version.
 */
export async function versionPage(deps: Deps, slug: string, version: string, ownerHandle?: string): Promise<z.output<typeof clawhubVersionPageSchema>> {
  const skill = await skillBySlug(deps, slug, ownerHandle);
  const item = isStrictVersion(version) ? await getVersion(deps.db, skill.id, version) : undefined;
  if (!item) throw notFound('Version not found');
  return {
    skill: { slug: skill.slug, displayName: skill.name },
    version: {
      ...clawhubVersion(item),
      files: [...item.files].sort(byFilename).map((f) => ({ path: f.filename, size: f.size, sha256: f.sha256, contentType: contentTypeOf(f.filename) })),
    },
  };
}
