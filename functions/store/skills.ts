import * as z from 'zod/mini';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DomainError } from '#core/errors';
import type { Owner } from '#core/policy';
import type { Price } from '#core/price';
import { provenanceSchema } from '#core/provenance-schema';
import { versionSourceSchema } from '#core/version-source';
import { scanResultSchema } from '#core/scan/scan-result-schema';
import { isRelease, releaseKey } from '#core/semver-order';
import { isValidSlug } from '#core/slug';
import { behaviourFields } from '#core/version-behaviour';
import type { RecordedSignature } from '#core/version-signature';
import { type Db, getItems, isConditionFailed, keyOfItem, parseItem, queryAll, tableKeys, writeIf } from './db.ts';
import { recordedVersion } from './fingerprints.ts';
import { withSignatures } from './signatures.ts';
import { fingerprintKey, prefix, skillKey, slugKey, sortPrefix, versionKey } from './keys.ts';
import { NO_ORG } from './orgs.ts';

/**
 * Skills, their versions and the slug index. A skill is three kinds of item:
 * `SKILL#<id>/META` (listing and current version), `SKILL#<id>/VERSION#<v>` (immutable),
 * and `SLUG#<slug>` (unique claim). Writes are ordered so that a crash leaves nothing visible
 * half-done: the slug is claimed first, the version stored next, and META — the item the
 * rebuild reads — is written last.
 */

const authorPartition = (userId: string) => prefix.author + userId;
const orgSkillsPartition = (org: string) => prefix.orgSkills + org.toLowerCase();
/** The GSI partition that lists a skill with its owner's: the author's, or the organisation's. */
const ownerPartition = (skill: Pick<SkillItem, 'owner' | 'authorId'>) =>
  skill.owner?.type === 'org' ? orgSkillsPartition(skill.owner.login) : authorPartition(skill.authorId);

/** A slug claim with no META behind it this long after claiming is a crashed publish's leftover. */
const ORPHAN_CLAIM_MS = 60_000;

/** A skill's META item: its listing and current version. Reading one checks its shape. */
const skillItemSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  /** The user who published it first; the owner of a user-owned skill. */
  authorId: z.string(),
  authorLogin: z.string(),
  /**
   * Who owns it: its author, or an organisation. Absent on skills stored before owners were
   * recorded, which are their authors' until the full rebuild writes it (core/policy.ts ownerOf).
   */
  owner: z.optional(z.object({ type: z.enum(['user', 'org']), login: z.string() })),
  /** Absent: public. Only an organisation's skill can be private, and never once public. */
  visibility: z.optional(z.enum(['public', 'private'])),
  paid: z.boolean(),
  /** Paid skills that are for sale: minor units of an ISO 4217 currency. */
  price: z.optional(z.object({ amount: z.number(), currency: z.string() })),
  formats: z.array(z.string()),
  currentVersion: z.string(),
  /**
   * The version installed when none is named, when it is not `currentVersion`: the newest cleared
   * release while the current one is being observed (core/version-behaviour.ts), null while no
   * version is cleared yet. Absent: the current version.
   */
  defaultVersion: z.optional(z.nullable(z.string())),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** The author's deprecation message, while the skill is deprecated. */
  deprecated: z.optional(z.string()),
  /** Set while the skill is quarantined (store/moderation.ts): who decided, why, since when. */
  quarantine: z.optional(z.object({ reason: z.string(), since: z.string(), by: z.string() })),
  /**
   * The skill's yanked releases, once {@link yanksTracked}: the one record the rule "a skill
   * always has a release that is not yanked" is checked against (see {@link yankRelease}). Stored
   * as a string set (absent when empty), read as a sorted list.
   */
  yankedReleases: z.optional(
    z.pipe(
      z.custom<Set<unknown>>((value) => value instanceof Set),
      z.transform((set) => [...set].filter((v): v is string => typeof v === 'string').sort()),
    ),
  ),
  /**
   * Whether META records the yanks of releases. Skills yanked before it did carry their yanks on
   * the version items alone; the first yank or undo since moves them into META.
   */
  yanksTracked: z.optional(z.boolean()),
});
export type SkillItem = z.output<typeof skillItemSchema>;

/** A stored file: its name, size, hash (its blob's key), how it was sent and its executable flag. */
export const storedFileSchema = z.object({
  filename: z.string(),
  size: z.number(),
  sha256: z.string(),
  encoding: z.enum(['utf8', 'base64']),
  executable: z.optional(z.boolean()),
});
export type StoredFile = z.output<typeof storedFileSchema>;

/** A version item: immutable once written. */
const versionItemSchema = z.object({
  skillId: z.string(),
  version: z.string(),
  changelog: z.string(),
  publishedAt: z.string(),
  files: z.array(storedFileSchema),
  dependencies: z._default(z.record(z.string(), z.string()), {}),
  /** `sha256-<base64>` of the canonical bundle. */
  integrity: z.string(),
  /** The login of the user who published it; absent on versions older than organisations (then the skill's author). */
  publishedBy: z.optional(z.string()),
  /**
   * The `SKILL.md` description, recorded when the version passed the conformance check at
   * publish; the discovery index lists it. Versions published before the check lack it.
   */
  frontMatterDescription: z.optional(z.string()),
  /** The `SKILL.md` `license`, recorded at publish with the description; ClawHub's clients show it. */
  frontMatterLicense: z.optional(z.string()),
  /** Withdrawn by the author (with the scan, the only changes a version item admits). */
  yanked: z.optional(z.boolean()),
  yankReason: z.optional(z.string()),
  /** The scan at publish, or of the last rescan (the one attribute a rescan rewrites); absent on versions older than scanning. */
  scan: z.optional(scanResultSchema),
  /** When the last rescan stored `scan`; absent while the scan is publishing's own (then it ran at `publishedAt`). */
  scannedAt: z.optional(z.string()),
  /** Where a version a CI workflow published came from, from its OIDC token's verified claims (docs/api.md §7.14). */
  provenance: z.optional(provenanceSchema),
  /** Where a version a GitHub import published was read (docs/api.md §7.16). */
  source: z.optional(versionSourceSchema),
  /** Its behaviour, effects and the verdict of its run (docs/scanning.md, "Behaviour"), which its observation rewrites once. */
  ...behaviourFields,
});
/**
 * A version as readers of its partition give it: the item, and the registry's signature of it
 * when one is recorded (store/signatures.ts; never an attribute of the item itself).
 */
export type VersionItem = z.output<typeof versionItemSchema> & { signature?: RecordedSignature };

/** A slug's claim: which skill holds it, and since when (a claim with no skill behind it expires). */
const slugClaimSchema = z.object({ skillId: z.string(), authorId: z.optional(z.string()), claimedAt: z.string() });

/** The stored form of each item, shared by the conditional writes here and bulk seeding. */
export const skillRecord = ({ yankedReleases, ...skill }: SkillItem) => ({
  ...skillKey(skill.id),
  ...skill,
  ...(yankedReleases && yankedReleases.length > 0 ? { yankedReleases: new Set(yankedReleases) } : {}),
  currentKey: releaseKey(skill.currentVersion),
  gsi1pk: ownerPartition(skill),
  gsi1sk: `${skill.createdAt}#${skill.id}`,
});
export const versionRecord = (item: VersionItem) => ({ ...versionKey(item.skillId, item.version), ...item });
export const slugRecord = (slug: string, skillId: string, authorId: string, now: Date) => ({
  ...slugKey(slug),
  skillId,
  authorId,
  claimedAt: now.toISOString(),
});

/** Skill ids are UUIDs; anything much longer names no skill and could exceed DynamoDB's key size. */
const MAX_ID_CHARS = 128;

export async function getSkill(db: Db, id: string): Promise<SkillItem | undefined> {
  if (id.length > MAX_ID_CHARS) return undefined;
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: skillKey(id), ConsistentRead: true }));
  return Item ? toSkillItem(Item) : undefined;
}

/**
 * The skills `slugs` name, that exist: the slug claims, then the skills' META, one BatchGetItem
 * per 100 of each (in no particular order). A claim with no META behind it (a publish in
 * flight, or one that crashed) names nothing.
 */
export async function skillsOfSlugs(db: Db, slugs: readonly string[]): Promise<SkillItem[]> {
  if (slugs.length === 0) return [];
  const claims = await getItems(db, slugs.map(slugKey));
  return getSkills(
    db,
    claims.map((claim) => parseItem(slugClaimSchema, claim, 'slug claim').skillId),
  );
}

/**
 * Claims `slug` for a new skill. Throws slug_taken when another skill holds it, unless that
 * claim is a crashed publish's leftover, which is taken over.
 */
export async function claimSlug(db: Db, slug: string, skillId: string, authorId: string, now: Date): Promise<void> {
  const item = slugRecord(slug, skillId, authorId, now);
  if (await writeIf(db, new PutCommand({ TableName: db.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }))) return;
  const held = await getSlugClaim(db, slug);
  const holder = held ? await getSkill(db, held.skillId) : undefined;
  const orphan = held && !holder && now.getTime() - Date.parse(held.claimedAt) > ORPHAN_CLAIM_MS;
  if (!orphan) throw slugTaken(slug, holder, authorId);
  try {
    await db.doc.send(
      new PutCommand({
        TableName: db.table,
        Item: item,
        ConditionExpression: 'skillId = :old',
        ExpressionAttributeValues: { ':old': held.skillId },
      }),
    );
  } catch (error) {
    if (isConditionFailed(error)) throw slugTaken(slug, undefined, authorId);
    throw error;
  }
}

/** Throws slug_taken when `slug` is held by another skill; read-only, for failing early. */
export async function assertSlugFree(db: Db, slug: string, callerId: string, now: Date): Promise<void> {
  const held = await getSlugClaim(db, slug);
  if (!held) return;
  const holder = await getSkill(db, held.skillId);
  if (holder || now.getTime() - Date.parse(held.claimedAt) <= ORPHAN_CLAIM_MS) throw slugTaken(slug, holder, callerId);
}

/**
 * The id of the skill `slug` names, or undefined when no skill holds it. A claim may name a
 * skill with no META yet (a publish in flight, or one that crashed): the caller's read of that
 * skill then finds nothing.
 */
export async function findSkillIdBySlug(db: Db, slug: string): Promise<string | undefined> {
  if (!isValidSlug(slug)) return undefined;
  return (await getSlugClaim(db, slug))?.skillId;
}

/** An id no skill has (skill ids are UUIDs). */
const NO_SKILL = '-';

/**
 * The skill `slug` names, or undefined. It costs two reads whether or not the slug is taken (the
 * second of a skill that cannot exist when it is not), so a `not_found` for a private skill takes
 * as long as one for a slug nobody holds.
 */
export async function getSkillBySlug(db: Db, slug: string): Promise<SkillItem | undefined> {
  const id = await findSkillIdBySlug(db, slug);
  const skill = await getSkill(db, id ?? NO_SKILL);
  return id === undefined ? undefined : skill;
}

/** {@link getSkillAndFingerprint} by slug, in as many reads whether or not the slug is taken. */
export async function getSkillAndFingerprintBySlug(db: Db, slug: string, fingerprint: string): Promise<{ skill?: SkillItem; version?: string }> {
  const id = await findSkillIdBySlug(db, slug);
  const found = await getSkillAndFingerprint(db, id ?? NO_SKILL, fingerprint);
  return id === undefined ? {} : found;
}

async function getSlugClaim(db: Db, slug: string): Promise<z.output<typeof slugClaimSchema> | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: slugKey(slug), ConsistentRead: true }));
  return Item && parseItem(slugClaimSchema, Item, 'slug claim');
}

function slugTaken(slug: string, holder: SkillItem | undefined, callerId: string): DomainError {
  if (holder && holder.authorId === callerId) {
    return new DomainError('slug_taken', `You already publish "${slug}"; add a version with POST /api/skills/${holder.id}/versions`, {
      skillId: holder.id,
    });
  }
  return new DomainError('slug_taken', `The slug "${slug}" belongs to another skill`);
}

/** Undoes {@link claimSlug} after a failed publish, only if the claim is still ours. */
export async function releaseSlug(db: Db, slug: string, skillId: string): Promise<void> {
  await writeIf(
    db,
    new DeleteCommand({ TableName: db.table, Key: slugKey(slug), ConditionExpression: 'skillId = :id', ExpressionAttributeValues: { ':id': skillId } }),
  );
}

/** Stores an immutable version; throws version_exists when the skill already has it. */
export async function putVersion(db: Db, item: VersionItem): Promise<void> {
  try {
    await db.doc.send(
      new PutCommand({
        TableName: db.table,
        Item: versionRecord(item),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (isConditionFailed(error)) throw versionExists(item.version);
    throw error;
  }
}

/**
 * What a version publish checks, in one consistent BatchGetItem instead of two GetItems: the
 * skill's META, and whether `version` is taken (then `taken` is the version_exists error), so
 * the request fails before any of its content is stored. {@link putVersion}'s condition still
 * decides races.
 */
export async function getSkillAndVersionCheck(db: Db, skillId: string, version: string): Promise<{ skill?: SkillItem; taken?: DomainError }> {
  const found = await getSkillAndVersion(db, skillId, version);
  return { skill: found.skill, taken: found.version ? versionExists(version) : undefined };
}

/** A skill's META and one of its versions, in one consistent BatchGetItem; either may be missing. */
export async function getSkillAndVersion(db: Db, skillId: string, version: string): Promise<{ skill?: SkillItem; version?: VersionItem }> {
  if (skillId.length > MAX_ID_CHARS) return {};
  const found = await getItems(db, [skillKey(skillId), versionKey(skillId, version)]);
  const meta = found.find((item) => item.sk === 'META');
  const item = found.find((item) => item.sk === versionKey(skillId, version).sk);
  return { skill: meta && toSkillItem(meta), version: item && toVersionItem(item) };
}

function versionExists(version: string): DomainError {
  return new DomainError('version_exists', `Version ${version} is already published; versions are immutable`);
}

export async function getVersion(db: Db, skillId: string, version: string): Promise<VersionItem | undefined> {
  if (skillId.length > MAX_ID_CHARS) return undefined;
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: versionKey(skillId, version), ConsistentRead: true }));
  return Item ? toVersionItem(Item) : undefined;
}

/** Removes a version that never became visible (its skill's META write failed). */
export async function deleteVersion(db: Db, skillId: string, version: string): Promise<void> {
  await db.doc.send(new DeleteCommand({ TableName: db.table, Key: versionKey(skillId, version) }));
}

/**
 * A skill's META, all its versions and the fingerprints recorded for them (fingerprint → version),
 * in one consistent Query of its partition (they share it), for the rebuild: one round trip where
 * a Get and a Query took two.
 */
export async function getSkillWithVersions(
  db: Db,
  skillId: string,
): Promise<{ skill?: SkillItem; versions: VersionItem[]; fingerprints: Map<string, string> }> {
  const fingerprints = new Map<string, string>();
  if (skillId.length > MAX_ID_CHARS) return { versions: [], fingerprints };
  const items = await queryAll(db, { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': skillKey(skillId).pk }, ConsistentRead: true });
  const meta = items.find((item) => item.sk === 'META');
  for (const item of items) {
    const recorded = recordedVersion(item);
    if (recorded) fingerprints.set(recorded.fingerprint, recorded.version);
  }
  const skill = meta && toSkillItem(meta);
  const versions = withSignatures(items.filter((item) => keyOfItem(item).sk.startsWith(sortPrefix.version)).map(toVersionItem), items);
  return { skill, versions: skill ? withRecordedYanks(skill, versions) : versions, fingerprints };
}

/**
 * A skill's versions with `yanked` as the skill records it. For a release of a skill whose META
 * tracks yanks, META's set decides (a version item's own flag is a copy written after it, which
 * a crash or a race may leave behind); for prereleases, and for every version of a skill not
 * tracked yet, the version's own flag.
 */
export function withRecordedYanks(skill: SkillItem, versions: VersionItem[]): VersionItem[] {
  if (!skill.yanksTracked) return versions;
  const yanked = new Set(skill.yankedReleases);
  return versions.map((item) => {
    if (!isRelease(item.version) || yanked.has(item.version) === (item.yanked === true)) return item;
    if (yanked.has(item.version)) return { ...item, yanked: true };
    const { yanked: _flag, yankReason: _reason, ...unyanked } = item;
    return unyanked;
  });
}

/** The releases a skill not tracking yanks yet has flagged yanked on their items (moved into META by its first tracked write). */
export function untrackedYanks(skill: SkillItem, versions: readonly VersionItem[]): string[] {
  return skill.yanksTracked ? [] : versions.filter((v) => v.yanked && isRelease(v.version)).map((v) => v.version);
}

/**
 * A skill's META and the version whose fingerprint is `fingerprint`, in one BatchGetItem; either
 * may be missing (no such skill; no version recorded with it, or not yet).
 */
export async function getSkillAndFingerprint(db: Db, skillId: string, fingerprint: string): Promise<{ skill?: SkillItem; version?: string }> {
  if (skillId.length > MAX_ID_CHARS) return {};
  const found = await getItems(db, [skillKey(skillId), fingerprintKey(skillId, fingerprint)]);
  const meta = found.find((item) => item.sk === 'META');
  const match = found.map(recordedVersion).find((recorded) => recorded !== undefined);
  return { ...(meta ? { skill: toSkillItem(meta) } : {}), ...(match ? { version: match.version } : {}) };
}

/** The META of each of `ids` that exists, in one BatchGetItem per 100 (in no particular order). */
export async function getSkills(db: Db, ids: readonly string[]): Promise<SkillItem[]> {
  return (await getItems(db, ids.filter((id) => id.length <= MAX_ID_CHARS).map(skillKey))).map(toSkillItem);
}

/** Each of the versions `wanted` names that exists, in one BatchGetItem per 100 (in no particular order). */
export async function getVersions(db: Db, wanted: readonly { skillId: string; version: string }[]): Promise<VersionItem[]> {
  return (
    await getItems(
      db,
      wanted.map(({ skillId, version }) => versionKey(skillId, version)),
    )
  ).map(toVersionItem);
}

export async function listVersions(db: Db, skillId: string): Promise<VersionItem[]> {
  const items = await queryAll(db, {
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :signatures AND :versions',
    // SIGNATURE# sorts before VERSION#, with only the versions' own prefix after: both in one range.
    ExpressionAttributeValues: { ':pk': skillKey(skillId).pk, ':signatures': sortPrefix.signature, ':versions': `${sortPrefix.version}\uffff` },
    ConsistentRead: true,
  });
  return withSignatures(items.filter((item) => keyOfItem(item).sk.startsWith(sortPrefix.version)).map(toVersionItem), items);
}

/** Creates the skill's META item: the commit point of a first publish. */
export async function putSkill(db: Db, skill: SkillItem): Promise<void> {
  await db.doc.send(
    new PutCommand({
      TableName: db.table,
      Item: skillRecord(skill),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/**
 * Records that `version` was published: bumps updatedAt and, when it outranks the current
 * version, makes it current. The condition on the sortable key makes concurrent publishes
 * converge on the highest version without transactions. Returns the skill afterwards.
 */
export async function recordPublished(db: Db, skillId: string, version: string, now: Date): Promise<SkillItem> {
  if (isRelease(version)) {
    try {
      const { Attributes } = await db.doc.send(
        new UpdateCommand({
          TableName: db.table,
          Key: skillKey(skillId),
          UpdateExpression: 'SET currentVersion = :v, currentKey = :k, updatedAt = :now',
          // Not a release a yank recorded meanwhile (one of a version stored a moment ago).
          ConditionExpression: 'attribute_exists(pk) AND currentKey < :k AND NOT contains(yankedReleases, :v)',
          ExpressionAttributeValues: { ':v': version, ':k': releaseKey(version), ':now': now.toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toSkillItem(Attributes!);
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
  }
  try {
    const { Attributes } = await db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: skillKey(skillId),
        UpdateExpression: 'SET updatedAt = :now',
        ConditionExpression: 'attribute_exists(pk) AND updatedAt < :now',
        ExpressionAttributeValues: { ':now': now.toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toSkillItem(Attributes!);
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    const skill = await getSkill(db, skillId);
    if (!skill) throw new Error(`skill ${skillId} vanished while publishing`);
    return skill;
  }
}

/**
 * Rewrites META's current version from the versions themselves, if it is still `seen`: the
 * repair for a publish that stored its version but crashed before {@link recordPublished}, or a
 * yank of a skill not tracking yanks yet, flagged on its item by a version of the code that did
 * not move META first. The condition keeps a repair computed from an older read from undoing a
 * publish that moved META since, and from making a release current that a yank recorded since.
 */
export async function setCurrentVersion(db: Db, skillId: string, seen: string, version: string): Promise<void> {
  await writeIf(
    db,
    new UpdateCommand({
      TableName: db.table,
      Key: skillKey(skillId),
      UpdateExpression: 'SET currentVersion = :v, currentKey = :k',
      ConditionExpression: 'attribute_exists(pk) AND currentVersion = :seen AND NOT contains(yankedReleases, :v)',
      ExpressionAttributeValues: { ':v': version, ':k': releaseKey(version), ':seen': seen },
    }),
  );
}

/**
 * Sets the skill's price (or takes it off sale, `price` undefined) and moves `updatedAt`, so
 * pages built before the change see it is stale. Returns the skill afterwards, or undefined
 * when there is no such skill.
 */
export async function setSkillPrice(db: Db, skillId: string, price: Price | undefined, now: Date): Promise<SkillItem | undefined> {
  if (skillId.length > MAX_ID_CHARS) return undefined;
  try {
    const { Attributes } = await db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: skillKey(skillId),
        UpdateExpression: price ? 'SET price = :price, updatedAt = :now' : 'SET updatedAt = :now REMOVE price',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':now': now.toISOString(), ...(price ? { ':price': { amount: price.amount, currency: price.currency } } : {}) },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toSkillItem(Attributes!);
  } catch (error) {
    if (isConditionFailed(error)) return undefined;
    throw error;
  }
}

/**
 * Marks a version yanked (with its reason, or none) or, with `yank` undefined, no longer yanked.
 * Returns the version afterwards, or undefined when there is no such version. Content, integrity
 * and everything else about the version stay as they were.
 */
export async function setYanked(db: Db, skillId: string, version: string, yank: { reason?: string } | undefined): Promise<VersionItem | undefined> {
  const update =
    yank === undefined
      ? { UpdateExpression: 'REMOVE yanked, yankReason' }
      : yank.reason === undefined
        ? { UpdateExpression: 'SET yanked = :t REMOVE yankReason', ExpressionAttributeValues: { ':t': true } }
        : { UpdateExpression: 'SET yanked = :t, yankReason = :r', ExpressionAttributeValues: { ':t': true, ':r': yank.reason } };
  try {
    const { Attributes } = await db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: versionKey(skillId, version),
        ConditionExpression: 'attribute_exists(pk)',
        ReturnValues: 'ALL_NEW',
        ...update,
      }),
    );
    return toVersionItem(Attributes!);
  } catch (error) {
    if (isConditionFailed(error)) return undefined;
    throw error;
  }
}

/**
 * Records on META that the release `version` is yanked: the write that decides, atomically, that
 * the skill keeps a release that is not yanked. Invariant: META's current version is never in
 * its set of yanked releases. A yank of another version holds on the current version not being
 * this one; a yank of the current version moves it to `next` (the highest release left, as the
 * caller read them) and holds on `next` not being yanked meanwhile. Of two yanks racing for the
 * last two releases, the second's condition fails. A skill not tracking yanks yet (`seen`) moves
 * the releases its items flag (`untracked`) into the set in the same write.
 *
 * Returns the skill afterwards, or undefined when META changed since `seen` in a way the write
 * depends on (the caller reads again and decides again).
 */
export async function yankRelease(
  db: Db,
  seen: SkillItem,
  change: { version: string; untracked: readonly string[]; next: string },
  now: Date,
): Promise<SkillItem | undefined> {
  const yanked = new Set([change.version, ...change.untracked]);
  // The current version moves when it is the one yanked, or (an untracked skill whose yanks
  // raced before) when it was already flagged on its item.
  const moves = yanked.has(seen.currentVersion);
  const set = ['yanksTracked = :t', 'updatedAt = :now', ...(moves ? ['currentVersion = :next', 'currentKey = :k'] : [])];
  const conditions = [
    'attribute_exists(pk)',
    seen.yanksTracked ? 'yanksTracked = :t' : 'attribute_not_exists(yanksTracked)',
    moves ? 'currentVersion = :current AND NOT contains(yankedReleases, :next)' : 'currentVersion <> :v',
  ];
  return updateIf(db, seen.id, {
    UpdateExpression: `SET ${set.join(', ')} ADD yankedReleases :yanked`,
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeValues: {
      ':t': true,
      ':now': now.toISOString(),
      ':yanked': yanked,
      ...(moves ? { ':next': change.next, ':k': releaseKey(change.next), ':current': seen.currentVersion } : { ':v': change.version }),
    },
  });
}

/**
 * Records on META that the release `version` is no longer yanked, making it current when it
 * outranks the current version. Returns the skill afterwards, or undefined when META started
 * tracking yanks since `seen` (the caller reads again).
 */
export async function unyankRelease(
  db: Db,
  seen: SkillItem,
  change: { version: string; untracked: readonly string[] },
  now: Date,
): Promise<SkillItem | undefined> {
  // An untracked skill's other flagged releases move into the set; this one is left out of it.
  const others = change.untracked.filter((v) => v !== change.version);
  const yanks = seen.yanksTracked ? ' DELETE yankedReleases :yanked' : others.length > 0 ? ' ADD yankedReleases :yanked' : '';
  const values = { ':t': true, ':now': now.toISOString(), ...(yanks ? { ':yanked': new Set(seen.yanksTracked ? [change.version] : others) } : {}) };
  const tracked = seen.yanksTracked ? 'yanksTracked = :t' : 'attribute_not_exists(yanksTracked)';
  const raised = await updateIf(db, seen.id, {
    UpdateExpression: `SET yanksTracked = :t, updatedAt = :now, currentVersion = :v, currentKey = :k${yanks}`,
    ConditionExpression: `attribute_exists(pk) AND ${tracked} AND currentKey < :k`,
    ExpressionAttributeValues: { ...values, ':v': change.version, ':k': releaseKey(change.version) },
  });
  return (
    raised ??
    updateIf(db, seen.id, {
      UpdateExpression: `SET yanksTracked = :t, updatedAt = :now${yanks}`,
      ConditionExpression: `attribute_exists(pk) AND ${tracked}`,
      ExpressionAttributeValues: values,
    })
  );
}

/** A conditional update of a skill's META: the skill afterwards, or undefined when the condition failed. */
async function updateIf(
  db: Db,
  skillId: string,
  update: { UpdateExpression: string; ConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> },
): Promise<SkillItem | undefined> {
  try {
    const { Attributes } = await db.doc.send(new UpdateCommand({ TableName: db.table, Key: skillKey(skillId), ReturnValues: 'ALL_NEW', ...update }));
    return toSkillItem(Attributes!);
  } catch (error) {
    if (isConditionFailed(error)) return undefined;
    throw error;
  }
}

/**
 * Bumps a skill's updatedAt (so pages built before see that it changed) and sets or removes its
 * deprecation message (`deprecated: null` removes it; absent leaves it). Returns the skill
 * afterwards, or throws when it vanished.
 */
export async function touchSkill(db: Db, skillId: string, change: { deprecated?: string | null }, now: Date): Promise<SkillItem> {
  const set = ['updatedAt = :now'];
  const values: Record<string, unknown> = { ':now': now.toISOString() };
  let remove = '';
  if (typeof change.deprecated === 'string') {
    set.push('deprecated = :d');
    values[':d'] = change.deprecated;
  } else if (change.deprecated === null) remove = ' REMOVE deprecated';
  const { Attributes } = await db.doc.send(
    new UpdateCommand({
      TableName: db.table,
      Key: skillKey(skillId),
      UpdateExpression: `SET ${set.join(', ')}${remove}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return toSkillItem(Attributes!);
}

/**
 * Writes the owner of a skill stored before owners were recorded: its author. The rebuild does
 * it, skill by skill, while readers take a missing owner for the author, so nothing waits for it.
 * Leaves a skill that has an owner (a transfer got there first) as it is.
 */
export async function recordOwner(db: Db, skillId: string, owner: Owner): Promise<boolean> {
  return writeIf(
    db,
    new UpdateCommand({
      TableName: db.table,
      Key: skillKey(skillId),
      UpdateExpression: 'SET #owner = :owner',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#owner)',
      ExpressionAttributeNames: { '#owner': 'owner' },
      ExpressionAttributeValues: { ':owner': { type: owner.type, login: owner.login } },
    }),
  );
}

/**
 * Moves a skill to `to` (an organisation), if `from` still owns it (a skill stored before owners
 * were recorded is its author's): the owner, the index that lists it with its owner's skills,
 * and `updatedAt`. Returns the skill afterwards, or undefined when its owner changed meanwhile.
 */
export async function setOwner(db: Db, skill: Pick<SkillItem, 'id' | 'authorId'>, from: Owner, to: Owner, now: Date): Promise<SkillItem | undefined> {
  const stillFrom =
    from.type === 'user'
      ? '((attribute_not_exists(#owner) OR (#owner.#type = :user AND #owner.#login = :fromLogin)) AND authorId = :author)'
      : '(#owner.#type = :org AND #owner.#login = :fromLogin)';
  try {
    const { Attributes } = await db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: skillKey(skill.id),
        UpdateExpression: 'SET #owner = :to, gsi1pk = :partition, updatedAt = :now',
        ConditionExpression: `attribute_exists(pk) AND ${stillFrom}`,
        ExpressionAttributeNames: { '#owner': 'owner', '#type': 'type', '#login': 'login' },
        ExpressionAttributeValues: {
          ':to': { type: to.type, login: to.login },
          ':partition': ownerPartition({ owner: to, authorId: skill.authorId }),
          ':now': now.toISOString(),
          ':fromLogin': from.login,
          ...(from.type === 'user' ? { ':user': 'user', ':author': skill.authorId } : { ':org': 'org' }),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toSkillItem(Attributes!);
  } catch (error) {
    if (isConditionFailed(error)) return undefined;
    throw error;
  }
}

/**
 * Makes a private skill public (and moves `updatedAt`): its static files appear at the rebuild
 * this write sets off. Returns the skill afterwards, or undefined when it is not private (any
 * more). Nothing makes a public skill private.
 */
export async function makePublic(db: Db, skillId: string, now: Date): Promise<SkillItem | undefined> {
  try {
    const { Attributes } = await db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: skillKey(skillId),
        UpdateExpression: 'SET updatedAt = :now REMOVE visibility',
        ConditionExpression: 'attribute_exists(pk) AND visibility = :private',
        ExpressionAttributeValues: { ':now': now.toISOString(), ':private': 'private' },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toSkillItem(Attributes!);
  } catch (error) {
    if (isConditionFailed(error)) return undefined;
    throw error;
  }
}

export async function listSkillsByAuthor(db: Db, userId: string): Promise<SkillItem[]> {
  const items = await queryAll(db, {
    IndexName: tableKeys.byOwner.name,
    KeyConditionExpression: 'gsi1pk = :author',
    ExpressionAttributeValues: { ':author': authorPartition(userId) },
  });
  return items.map(toSkillItem);
}

/** An organisation's skills, oldest first (from the index, which follows writes within about a second). */
export async function listSkillsByOrg(db: Db, org: string): Promise<SkillItem[]> {
  const items = await queryAll(db, {
    IndexName: tableKeys.byOwner.name,
    KeyConditionExpression: 'gsi1pk = :org',
    ExpressionAttributeValues: { ':org': orgSkillsPartition(org) },
  });
  return items.map(toSkillItem);
}

export const toSkillItem = (raw: Record<string, unknown>): SkillItem => parseItem(skillItemSchema, raw, 'skill');

/**
 * What a decision weighs in place of a skill that does not exist: a private skill of an
 * organisation no one can join ({@link NO_ORG}), in the stored form, parsed as a read skill is
 * (a new copy each time, as each read gives). A stranger's `not_found` for a missing skill then
 * does what one for a hidden skill does, step for step: the same parse, the same roles read, the
 * same refusal by the policy, so neither the answer nor the work behind it tells them apart.
 */
export function standInSkill(): SkillItem {
  return toSkillItem(STAND_IN_ITEM);
}

const STAND_IN_ITEM: Readonly<Record<string, unknown>> = {
  ...skillKey(NO_SKILL),
  id: NO_SKILL,
  slug: NO_SKILL,
  name: NO_SKILL,
  description: '',
  category: '',
  authorId: NO_SKILL,
  authorLogin: NO_ORG,
  owner: { type: 'org', login: NO_ORG },
  visibility: 'private',
  paid: false,
  formats: [],
  currentVersion: '0.0.0',
  createdAt: '1970-01-01T00:00:00.000Z',
  updatedAt: '1970-01-01T00:00:00.000Z',
};
export const toVersionItem = (raw: Record<string, unknown>): VersionItem => parseItem(versionItemSchema, raw, 'version');
