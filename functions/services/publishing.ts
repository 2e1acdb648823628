import { bundleIntegrity, decodeFile, type FileBytes, fileEntries } from '#core/bundle';
import type { AppealBody } from '#core/appeals';
import { clawhubFingerprint } from '#core/clawhub-fingerprint';
import { DomainError, invalidRequest, notFound, payloadTooLarge } from '#core/errors';
import { type Owner, ownerIdentity, ownerOf, sameLogin, type Visibility, visibilityOf } from '#core/policy';
import { limits } from '#core/limits';
import type { ScanResult } from '#core/scan/finding';
import type { PublishBody, Skill, VersionBody } from '#core/schemas';
import { assertStrictVersion, isRelease } from '#core/semver-order';
import type { SkillConformance } from '#core/skill-conformance';
import { type ImitationCandidate, imitatedSkill } from '#core/slug-imitation';
import { DEFAULT_CATEGORY, slugify } from '#core/slug';
import type { VersionSource } from '#core/version-source';
import type { Behaviour } from '#core/version-behaviour';
import { allow, allowSkill, type Principal, rolesIn } from './authorization.ts';
import { record } from './audit.ts';
import { rateWindow } from './rate-windows.ts';
import { scanForPublish } from './scanning.ts';
import { toSkill } from './skill-views.ts';
import { putBlobs } from '../content/blobs.ts';
import type { Deps } from '../platform/composition.ts';
import { signVersionFacts } from '../platform/signer.ts';
import { deleteFingerprint, putFingerprint, type RecordedFingerprint } from '../store/fingerprints.ts';
import { lookalikeCandidates } from '../store/lookalikes.ts';
import { deleteSignature, putSignature } from '../store/signatures.ts';
import { countSkill, getOrg } from '../store/orgs.ts';
import { getUser } from '../store/users.ts';
import { returnSlot, type SlotTaken, takeSlot } from '../store/rate-limit.ts';
import {
  assertSlugFree,
  claimSlug,
  deleteVersion,
  getSkillAndVersionCheck,
  getVersions,
  listSkillsByAuthor,
  putSkill,
  putVersion,
  recordPublished,
  releaseSlug,
  type SkillItem,
  skillsOfSlugs,
  type StoredFile,
  type VersionItem,
} from '../store/skills.ts';

/**
 * Publishing: a new skill at 1.0.0, and new versions of it. Everything that can reject a request
 * is checked before anything is written; writes go content first, then DynamoDB items under
 * conditions, and a failure part-way undoes what this request wrote. Every version is a valid
 * Agent Skill (docs/agent-skills.md), and a new skill may not imitate another author's popular one.
 */

export const FIRST_VERSION = '1.0.0';

export interface Published<T> {
  result: T;
  rate?: SlotTaken;
}

/**
 * The skill as created, with the scan of its first version and what its `SKILL.md` should fix
 * (`warnings`, present only when there is something).
 */
export type SkillPublished = Skill & { scan: ScanResult; behaviour: Behaviour; warnings?: string[] };

/**
 * A version an admin approved on appeal (services/appeals.ts): its files as the author sent them,
 * and the scan the admins reviewed, carrying `reviewed`. It is published with that scan instead
 * of a new one, and counts against no rate limit.
 */
export interface Approved {
  files: FileBytes[];
  scan: ScanResult;
}

/** A new skill that passed every check but the scan's verdict: what publishing it would write. */
export interface CheckedSkill {
  owner: Owner;
  visibility: Visibility;
  version: string;
  slug: string;
  files: FileBytes[];
  conformance: SkillConformance;
  /** The body's, else the `SKILL.md`'s, else the default (docs/api.md §7.4). */
  category: string;
}

/**
 * A new skill by `author` at `firstVersion` (1.0.0 unless a ClawHub publish names another),
 * whose body the route has already validated; `approved` publishes what an admin approved, and
 * `source` is where a GitHub import read the files (recorded on the version). Neither takes a
 * slot of the rate limit here: an approval counts against none, and an import takes one for all
 * its folders (services/imports.ts).
 */
export async function publishSkill(
  deps: Deps,
  principal: Principal,
  body: PublishBody,
  firstVersion = FIRST_VERSION,
  approved?: Approved,
  source?: VersionSource,
): Promise<Published<SkillPublished>> {
  const { db, clock } = deps;
  const author = principal.user;
  const { owner, visibility, version, slug, files, conformance, category } = await checkSkill(deps, principal, body, firstVersion, approved?.files);

  // The scan: a refused version stores nothing and spends no publish slot.
  const scan = approved?.scan ?? (await scanForPublish(deps, files, body.paid));
  if (!approved) await holdNewPublisher(deps, principal, scan, { publish: body }, { slug, version, files });
  const { behaviourAtPublish, startObservation } = await behaviourService();
  const observed = await behaviourAtPublish(files, body.paid);

  const window = rateWindow(deps.config, 'publish');
  const slot = approved || source ? undefined : await takeSlot(db, author.id, clock(), window);
  const now = clock();
  const id = crypto.randomUUID();
  const skill: SkillItem = {
    id,
    slug,
    name: body.name,
    description: body.description,
    category,
    authorId: author.id,
    authorLogin: author.login,
    owner,
    ...(visibility === 'private' ? { visibility } : {}),
    paid: body.paid,
    ...(body.price ? { price: body.price } : {}),
    formats: body.formats,
    currentVersion: version,
    // Nothing is installed by default until the first version's run clears it.
    ...(observed.behaviour === 'pending' ? { defaultVersion: null } : {}),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  const item = {
    ...versionItem(id, version, body.changelog, now, files, body.dependencies, conformance),
    publishedBy: author.login,
    scan,
    ...observed,
    ...(source ? { source } : {}),
  };
  const fingerprint = fingerprintOf(item);
  let claimed = false;
  let versionStored = false;
  let counted = false;
  try {
    await putBlobs(deps.blobs, files);
    // An organisation counts its skills in before one becomes its own: one being deleted meanwhile is refused.
    if (owner.type === 'org') {
      if (!(await countSkill(db, owner.login, 1))) throw notFound(`No organisation ${owner.login}`);
      counted = true;
    }
    await claimSlug(db, slug, id, author.id, now);
    claimed = true;
    await putVersion(db, item);
    versionStored = true;
    // Settled together, so an undo never races a write still in flight.
    for (const written of await Promise.allSettled([putSkill(db, skill), putFingerprint(db, fingerprint), signVersion(deps, slug, item)])) settled(written);
  } catch (error) {
    await undo(deps, [
      () => (versionStored ? deleteFingerprint(db, fingerprint) : undefined),
      () => (versionStored ? deleteSignature(db, id, version) : undefined),
      () => (versionStored ? deleteVersion(db, id, version) : undefined),
      () => (claimed ? releaseSlug(db, slug, id) : undefined),
      () => (counted ? countSkill(db, owner.login, -1).then(() => undefined) : undefined),
      () => (slot ? returnSlot(db, author.id, slot.stamp, window) : undefined),
    ]);
    throw error;
  }
  deps.changed([id]);
  if (observed.behaviour === 'pending') await startObservation(deps, { skillId: id, slug, version });
  if (owner.type === 'org') await record(deps, owner.login, principal, 'skill.published', slug, { version, visibility });
  return { result: { ...toSkill(skill), scan, behaviour: observed.behaviour, ...warningsOf(conformance) }, ...(slot ? { rate: slot } : {}) };
}

/**
 * Every check of a new skill but the scan: who may publish it and where, its first version, its
 * slug (free, not imitating), its dependencies, and that its files are a valid Agent Skill.
 * Nothing is written. `files` are the decoded files when the caller has them already (an approval).
 */
export async function checkSkill(
  deps: Deps,
  principal: Principal,
  body: PublishBody,
  firstVersion = FIRST_VERSION,
  decoded?: FileBytes[],
): Promise<CheckedSkill> {
  const { db, clock } = deps;
  const author = principal.user;
  const owner = await newSkillOwner(deps, principal, body);
  const visibility = body.visibility ?? 'public';
  const version = assertStrictVersion(firstVersion);
  // The current version is the highest release: a skill needs one from its first version on.
  if (!isRelease(version))
    throw invalidRequest(`A new skill's first version must be a release such as 1.0.0, not ${version}`, {
      issues: [{ path: ['version'], message: 'a prerelease cannot be the first version' }],
    });
  const slug = body.slug ?? slugify(body.name);
  if (!slug)
    throw invalidRequest('The name has no letters or digits to make a slug from; send a slug', {
      issues: [{ path: ['slug'], message: 'required for this name' }],
    });
  // A publish without files (the interface's own example) gets the SKILL.md every skill needs.
  const files =
    decoded ?? prepareFiles(body.files.length > 0 ? body.files : [await defaultSkillFile({ slug, name: body.name, description: body.description })]);
  const [known, free, lookalikes] = await Promise.allSettled([
    dependencySkills(deps, body.dependencies),
    assertSlugFree(db, slug, author.id, clock()),
    lookalikeCandidates(db, slug, body.name),
  ]);
  // What the reads decide comes before the files are parsed: a resent publish costs one read.
  checkDependencies(body.dependencies, slug, usable(settled(known), { owner, visibility }));
  settled(free);
  checkImitation(slug, body.name, ownerIdentity({ owner, authorLogin: author.login, authorId: author.id }), settled(lookalikes));
  const conformance = await conformingSkill(files, slug);
  return { owner, visibility, version, slug, files, conformance, category: body.category ?? (await listedCategory(conformance)) };
}

export interface VersionCreated {
  skillId: string;
  version: string;
  changelog: string;
  publishedAt: string;
  files: { filename: string; size: number; sha256: string }[];
  currentVersion: string;
  scan: ScanResult;
  behaviour: Behaviour;
  warnings?: string[];
}

/**
 * A new version of `skillId` by `author`, whose body the route has already validated, checked by
 * {@link checkVersion}; `approved` publishes what an admin approved, and `source` is where a
 * GitHub import read the files. Neither takes a slot of the rate limit here, as for {@link publishSkill}.
 */
export async function publishVersion(
  deps: Deps,
  principal: Principal,
  skillId: string,
  body: VersionBody,
  approved?: Approved,
  source?: VersionSource,
): Promise<Published<VersionCreated>> {
  const author = principal.user;
  const { db, clock } = deps;
  const { skill, version, files, conformance } = await checkVersion(deps, principal, skillId, body, approved?.files);

  // The scan: a refused version stores nothing and spends no slot of the version limit.
  const scan = approved?.scan ?? (await scanForPublish(deps, files, skill.paid));
  if (!approved) await holdNewPublisher(deps, principal, scan, { skillId, version: body }, { slug: skill.slug, version, files });
  const { behaviourAtPublish, startObservation } = await behaviourService();
  const observed = await behaviourAtPublish(files, skill.paid);

  const window = rateWindow(deps.config, 'version');
  const slot = approved || source ? undefined : await takeSlot(db, author.id, clock(), window);
  const now = clock();
  const item = {
    ...versionItem(skillId, version, body.changelog, now, files, body.dependencies, conformance),
    publishedBy: author.login,
    scan,
    ...observed,
    // From the verified claims of the OIDC token a CI publish token was exchanged for, never from the body.
    ...(principal.provenance ? { provenance: principal.provenance } : {}),
    ...(source ? { source } : {}),
  };
  try {
    await putBlobs(deps.blobs, files);
    // Its write decides a race for the number.
    await putVersion(db, item);
  } catch (error) {
    await undo(deps, [() => (slot ? returnSlot(db, author.id, slot.stamp, window) : undefined)]);
    throw error;
  }
  // META moves, and the fingerprint is recorded, only once the version is stored.
  const [updated] = await Promise.all([
    recordPublished(db, skillId, version, now, observed.behaviour),
    putFingerprint(db, fingerprintOf(item)),
    signVersion(deps, skill.slug, item),
  ]);
  deps.changed([skillId]);
  if (observed.behaviour === 'pending') await startObservation(deps, { skillId, slug: skill.slug, version });
  const owner = ownerOf(skill);
  if (owner.type === 'org') await record(deps, owner.login, principal, 'version.published', `${skill.slug}@${version}`, { version });
  return { result: created(item, updated.currentVersion, scan, conformance), ...(slot ? { rate: slot } : {}) };
}

/**
 * Publishing's part of observing a version (services/behaviour.ts), loaded on the first publish:
 * every Lambda that publishes carries publishing, and none needs this at its cold start.
 */
const behaviourService = () => import('./behaviour.ts');

/** What a held version is: its skill's slug, its version and its files. */
export interface HeldVersion {
  slug: string;
  version: string;
  files: readonly FileBytes[];
}

/**
 * Throws `held_for_review` when a new publisher's version is flagged (core/appeals.ts
 * {@link heldForReview}): it is filed in the appeal queue instead of published. Reads the account
 * and the author's skills only for a flagged version.
 */
async function holdNewPublisher(deps: Deps, principal: Principal, scan: ScanResult, appeal: Omit<AppealBody, 'message'>, held: HeldVersion): Promise<void> {
  if (scan.verdict !== 'suspicious') return;
  const [{ heldForReview }, account, skills] = await Promise.all([
    import('#core/appeals'),
    getUser(deps.db, principal.user.id),
    listSkillsByAuthor(deps.db, principal.user.id),
  ]);
  const current = await getVersions(
    deps.db,
    skills.map((s) => ({ skillId: s.id, version: s.currentVersion })),
  );
  const hasCleanVersion = current.some((v) => (v.scan?.verdict ?? 'clean') === 'clean');
  if (!heldForReview(scan.verdict, { createdAt: account?.createdAt, hasCleanVersion }, deps.clock())) return;
  const { holdForReview } = await import('./appeals.ts');
  throw await holdForReview(deps, principal, appeal, held);
}

/** A new version that passed every check but the scan's verdict. */
export interface CheckedVersion {
  skill: SkillItem;
  version: string;
  files: FileBytes[];
  conformance: SkillConformance;
}

/**
 * Every check of a new version but the scan. Those that need no storage (the version's form, the
 * files' sizes) come before any read; the reads then go out together, and their verdicts come in
 * order: the skill, who may publish to it and its quarantine, whether the version is taken, and
 * the dependencies; the files are parsed last. Nothing is written.
 */
export async function checkVersion(deps: Deps, principal: Principal, skillId: string, body: VersionBody, decoded?: FileBytes[]): Promise<CheckedVersion> {
  const { db } = deps;
  const version = assertStrictVersion(body.version);
  const files = decoded ?? prepareFiles(body.files);
  const [found, known] = await Promise.allSettled([getSkillAndVersionCheck(db, skillId, version), dependencySkills(deps, body.dependencies)]);
  const { skill: stored, taken } = settled(found);
  const { skill } = await allowSkill(deps, principal, stored, skillId, 'skill.publish_version');
  // Its author may not go on publishing while admins (or a rescan) hold it: nothing new of it may
  // reach anyone, and the rebuild writes nothing static for it either.
  if (skill.quarantine)
    throw new DomainError('quarantined', `${skill.slug} is quarantined after reports or a scan; no version of it can be published until an admin releases it`);
  // What the reads decide comes before the files are parsed: a resent version costs one read.
  if (taken) throw taken;
  checkDependencies(body.dependencies, skill.slug, usable(settled(known), { owner: ownerOf(skill), visibility: visibilityOf(skill) }));
  const conformance = await conformingSkill(files, skill.slug);
  return { skill, version, files, conformance };
}

function created(item: VersionItem, currentVersion: string, scan: ScanResult, conformance: SkillConformance): VersionCreated {
  return {
    skillId: item.skillId,
    version: item.version,
    changelog: item.changelog,
    publishedAt: item.publishedAt,
    files: item.files.map(({ filename, size, sha256 }) => ({ filename, size, sha256 })),
    currentVersion,
    scan,
    behaviour: item.behaviour ?? 'cleared',
    ...warningsOf(conformance),
  };
}

/**
 * The conformance of a version's files, when they are a valid Agent Skill named `slug`; else
 * 400 `invalid_skill` listing every problem. The check, with the `yaml` parser it reads front
 * matter with, is loaded on first use, as the scanner is: a cold start that ends in a 401 or a
 * 415 should not pay for parsing it.
 */
async function conformingSkill(files: FileBytes[], slug: string): Promise<SkillConformance> {
  const { checkSkillConformance } = await import('#core/skill-conformance');
  const conformance = checkSkillConformance(files, slug);
  const [first, ...more] = conformance.issues;
  if (!first) return conformance;
  const others = more.length === 0 ? '' : ` (and ${more.length} more problem${more.length === 1 ? '' : 's'})`;
  throw new DomainError('invalid_skill', `The files are not a valid Agent Skill: ${first.file}: ${first.message}${others}`, { issues: conformance.issues });
}

/**
 * The category of a new skill whose publish names none: its `SKILL.md`'s, else the default, read
 * as `skillpress publish` reads it. Loaded on first use, as {@link conformingSkill} is.
 */
async function listedCategory(conformance: SkillConformance): Promise<string> {
  const { listingOf } = await import('#core/skill-listing');
  return listingOf(conformance.frontMatter).category ?? DEFAULT_CATEGORY;
}

/** The `SKILL.md` of a publish without files; loaded on first use, as {@link conformingSkill} is. */
async function defaultSkillFile(skill: { slug: string; name: string; description: string }): Promise<PublishBody['files'][number]> {
  return (await import('#core/default-skill-file')).defaultSkillFile(skill);
}

const warningsOf = ({ warnings }: SkillConformance) => (warnings.length > 0 ? { warnings } : {});

/**
 * Who a new skill is for: the caller themselves (unless `owner` names an organisation), who may
 * publish skills of their own, or an organisation the caller maintains or owns (404 for no such
 * organisation, 403 for one they may not publish into). Only an organisation's skill may be
 * private (400).
 */
async function newSkillOwner(deps: Deps, principal: Principal, body: PublishBody): Promise<Owner> {
  const { user } = principal;
  if (body.owner === undefined || sameLogin(body.owner, user.login)) {
    if (body.visibility === 'private') {
      throw invalidRequest("Only an organisation's skill can be private: publish it into an organisation with owner", {
        issues: [{ path: ['visibility'], message: "only an organisation's skill can be private" }],
      });
    }
    await allow(deps, principal, 'account.create_skill', { kind: 'account', userId: user.id });
    return { type: 'user', login: user.login };
  }
  const org = await getOrg(deps.db, body.owner);
  if (!org) throw notFound(`No organisation ${body.owner}`);
  await allow(deps, principal, 'org.create_skill', { kind: 'org', login: org.login }, rolesIn(org, user.id));
  return { type: 'org', login: org.login };
}

/** 409 `slug_too_similar` when `slug` reads like another owner's popular skill (docs/agent-skills.md). */
function checkImitation(slug: string, name: string, owner: string, candidates: ImitationCandidate[]): void {
  const imitation = imitatedSkill(slug, name, owner, candidates);
  if (!imitation) return;
  const { similarTo } = imitation;
  if (imitation.by === 'slug') {
    throw new DomainError(
      'slug_too_similar',
      `The slug "${slug}" reads like "${similarTo}", another author's popular skill; choose a name that cannot be mistaken for it`,
      { similarTo },
    );
  }
  throw new DomainError(
    'name_too_similar',
    `The name "${name}" reads the same as the name of "${similarTo}", another author's popular skill; choose a name that cannot be mistaken for it`,
    { similarTo },
  );
}

/** Decodes files and applies the size limits of docs/api.md §6 (413), before anything is stored. */
export function prepareFiles(files: PublishBody['files']): FileBytes[] {
  if (files.length > limits.filesPerVersion) throw payloadTooLarge(`At most ${limits.filesPerVersion} files per version; got ${files.length}`);
  const decoded: FileBytes[] = [];
  let total = 0;
  for (const [index, file] of files.entries()) {
    const bytes = decodeFile(file);
    if (!bytes)
      throw invalidRequest(`files.${index}.content is not valid base64`, { issues: [{ path: ['files', index, 'content'], message: 'invalid base64' }] });
    if (bytes.bytes.byteLength > limits.fileBytes) throw payloadTooLarge(`${file.filename} is over ${limits.fileBytes} bytes`);
    total += bytes.bytes.byteLength;
    decoded.push(bytes);
  }
  if (total > limits.versionBytes) throw payloadTooLarge(`The files add up to ${total} bytes; the limit is ${limits.versionBytes}`);
  return decoded;
}

/** The skills the dependencies' slugs name: batched reads, as the body holds at most a few dozen. */
function dependencySkills(deps: Deps, dependencies: Record<string, string>): Promise<SkillItem[]> {
  return skillsOfSlugs(deps.db, Object.keys(dependencies));
}

/**
 * The slugs of the skills a skill may depend on: those everyone who may install it can install
 * too. A public skill depends on public skills; a private one also on its organisation's private
 * skills. Any other private skill is as unknown as a missing one, so a dependency tells nobody
 * that a private slug exists.
 */
function usable(skills: SkillItem[], dependent: { owner: Owner; visibility: Visibility }): Set<string> {
  const sameOrg = (skill: SkillItem) => {
    const owner = ownerOf(skill);
    return dependent.owner.type === 'org' && owner.type === 'org' && sameLogin(owner.login, dependent.owner.login);
  };
  return new Set(skills.filter((skill) => visibilityOf(skill) === 'public' || (dependent.visibility === 'private' && sameOrg(skill))).map((s) => s.slug));
}

function checkDependencies(dependencies: Record<string, string>, ownSlug: string, known: Set<string>): void {
  const slugs = Object.keys(dependencies);
  if (slugs.includes(ownSlug))
    throw invalidRequest('A skill cannot depend on itself', { issues: [{ path: ['dependencies', ownSlug], message: 'self-dependency' }] });
  const missing = slugs.filter((slug) => !known.has(slug));
  if (missing.length > 0) {
    throw invalidRequest(`Unknown dependencies: ${missing.join(', ')}`, {
      issues: missing.map((slug) => ({ path: ['dependencies', slug], message: 'no such skill' })),
    });
  }
}

function versionItem(
  skillId: string,
  version: string,
  changelog: string | undefined,
  now: Date,
  files: FileBytes[],
  dependencies: Record<string, string>,
  conformance: SkillConformance,
): VersionItem {
  const byName = new Map(files.map((f) => [f.filename, f]));
  const stored: StoredFile[] = fileEntries(files).map((e) => {
    const file = byName.get(e.filename)!;
    return { ...e, encoding: file.encoding, ...(file.executable ? { executable: true } : {}) };
  });
  return {
    skillId,
    version,
    changelog: changelog ?? '',
    publishedAt: now.toISOString(),
    files: stored,
    dependencies,
    integrity: bundleIntegrity(files),
    ...(conformance.description === undefined ? {} : { frontMatterDescription: conformance.description }),
    ...(typeof conformance.frontMatter?.license === 'string' ? { frontMatterLicense: conformance.frontMatter.license } : {}),
  };
}

/** The ClawHub fingerprint item of a version (store/fingerprints.ts), so resolve names it as soon as its publish answers. */
const fingerprintOf = (item: VersionItem): RecordedFingerprint => ({
  skillId: item.skillId,
  fingerprint: clawhubFingerprint(item.files),
  version: item.version,
});

/**
 * Records the registry's signature of a version just stored, so its first registry documents
 * carry it. A signer that fails (KMS unreachable) fails no publish: the rebuild signs every
 * version that has no signature, and the documents wait for it.
 */
async function signVersion(deps: Deps, slug: string, item: VersionItem): Promise<void> {
  try {
    const signature = await signVersionFacts(deps.signer, { slug, ...item });
    await putSignature(deps.db, { skillId: item.skillId, version: item.version, integrity: item.integrity, signature });
  } catch (error) {
    deps.log.warn('could not sign a version at publish; the rebuild signs it', { skillId: item.skillId, version: item.version, error: (error as Error).name });
  }
}

/** The value of a settled read, or its error: lets reads run together and fail in a set order. */
function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

/** Runs compensating steps after a failed write; each is attempted even if another fails. */
async function undo(deps: Deps, steps: (() => Promise<void> | undefined)[]): Promise<void> {
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      deps.log.error('could not undo part of a failed publish', { error: (error as Error).name });
    }
  }
}
