import type * as z from 'zod/mini';
import { limits } from './limits.ts';
import { contentIsPublic, type Owner, ownerOf, type Visibility, visibilityOf } from './policy.ts';
import type { Price } from './price.ts';
import { byPrecedenceDesc, currentOf } from './semver-order.ts';
import type { ScanResult } from './scan/finding.ts';
import type { pendingDocumentSchema, quarantinedDocumentSchema, registryDocumentSchema, versionsDocumentSchema, versionSummarySchema } from './schemas.ts';
import { bundlePath } from './static-paths.ts';
import type { VersionSignature } from './version-signature.ts';
import type { Provenance } from './provenance.ts';
import type { VersionSource } from './version-source.ts';
import { type Behaviour, behaviourOf, defaultVersionOf, refused } from './version-behaviour.ts';
import type { Effects } from './effects/effect.ts';

/**
 * The registry documents of one skill (docs/api.md §11.2): `/api/registry/<slug>` and its
 * `/versions` list. Pure: the rebuild feeds them what DynamoDB holds and writes the result.
 */

export interface SkillFacts {
  id: string;
  slug: string;
  name: string;
  description: string;
  category: string;
  /** The login of the user who published it first. */
  authorLogin: string;
  /** Who owns it; absent on skills stored before owners were recorded (then the author). */
  owner?: Owner;
  /** Absent: public. */
  visibility?: Visibility;
  paid: boolean;
  /** Paid skills that are for sale. */
  price?: Price;
  formats: string[];
  createdAt: string;
  updatedAt: string;
  /** The author's deprecation message, while the skill is deprecated. */
  deprecated?: string;
  /** Present while the skill is quarantined: its documents then say only who it is. */
  quarantine?: { reason: string; since: string };
}

export interface VersionFacts {
  version: string;
  changelog: string;
  publishedAt: string;
  files: { filename: string; size: number; sha256: string }[];
  dependencies: Record<string, string>;
  integrity: string;
  /** Who published it; absent on versions older than organisations (then the skill's author). */
  publishedBy?: string;
  /** Withdrawn by the author: still listed and deliverable by exact version, never current. */
  yanked?: boolean;
  yankReason?: string;
  /** The version's scan, as publishing (or the last rescan) stored it; absent for older versions. */
  scan?: ScanResult;
  /** When the last rescan ran; absent while the scan is publishing's own. */
  scannedAt?: string;
  /** The registry's signature of the version's facts (core/version-signature.ts); absent until signed. */
  signature?: VersionSignature;
  /** Where a version published from CI came from (core/provenance.ts); absent for any other publish. */
  provenance?: Provenance;
  /** Where a version a GitHub import published was read (core/version-source.ts); absent for any other publish. */
  source?: VersionSource;
  /** Whether the sandbox has seen what it does when run (core/version-behaviour.ts); absent on versions stored before: cleared. */
  behaviour?: Behaviour;
  /** What running it does outside its folder; absent on versions stored before observation. */
  effects?: Effects;
}

export type VersionSummary = z.output<typeof versionSummarySchema>;
/** `/api/registry/<slug>`; the schema is the shape readers parse. */
export type RegistryDocument = z.output<typeof registryDocumentSchema>;

/** Newest publication first; versions published in the same instant by descending precedence. */
export function byPublishedDesc(a: Pick<VersionFacts, 'publishedAt' | 'version'>, b: Pick<VersionFacts, 'publishedAt' | 'version'>): number {
  if (a.publishedAt !== b.publishedAt) return a.publishedAt < b.publishedAt ? 1 : -1;
  return byPrecedenceDesc(a.version, b.version);
}

/**
 * The current version, derived from the versions themselves (the source of truth): the highest
 * release that is neither yanked nor refused on what it did when run (docs/api.md §8).
 */
export function currentVersionOf(versions: readonly Pick<VersionFacts, 'version' | 'yanked' | 'behaviour'>[]): string | undefined {
  return currentOf(versions.filter((v) => !v.yanked && !refused(v)).map((v) => v.version));
}

/**
 * The facts of the version installed by default: the newest cleared release (core/version-behaviour.ts),
 * which is the current version unless a newer one is being observed. The API never lets an author
 * yank the last release that is not yanked, but two yanks racing can: then the highest release
 * stands in, yanked or not, rather than the skill's documents failing to build.
 */
function currentFacts(versions: VersionFacts[]): VersionFacts {
  const current = defaultVersionOf(versions) ?? currentVersionOf(versions) ?? currentOf(versions.map((v) => v.version));
  const found = versions.find((v) => v.version === current);
  if (!found) throw new Error('a skill needs at least one release version');
  return found;
}

/** A version as the registry lists it; `skill` names who published the versions that do not say. */
const summary =
  (skill: SkillFacts) =>
  (v: VersionFacts): VersionSummary => ({
    version: v.version,
    changelog: v.changelog,
    publishedAt: v.publishedAt,
    publishedBy: v.publishedBy ?? skill.authorLogin,
    integrity: v.integrity,
    ...(v.yanked ? { yanked: true as const, ...(v.yankReason === undefined ? {} : { yankReason: v.yankReason }) } : {}),
    ...(v.scan ? { scan: v.scan, scannedAt: v.scannedAt ?? v.publishedAt } : {}),
    ...(v.signature ? { signature: { keyid: v.signature.keyid, sig: v.signature.sig, ...(v.signature.format ? { format: v.signature.format } : {}) } } : {}),
    ...(v.provenance ? { provenance: v.provenance } : {}),
    ...(v.source ? { source: v.source } : {}),
    ...(v.behaviour ? { behaviour: v.behaviour } : {}),
    ...(v.effects ? { effects: v.effects } : {}),
  });

export function registryDocument(skill: SkillFacts, all: VersionFacts[]): RegistryDocument {
  const versions = all.filter((v) => !refused(v));
  const current = currentFacts(versions);
  return {
    ...publicSkill(skill),
    currentVersion: current.version,
    createdAt: skill.createdAt,
    updatedAt: skill.updatedAt,
    files: current.files.map(({ filename, size, sha256 }) => ({ filename, size, sha256 })),
    ...(current.scan ? { scan: current.scan } : {}),
    versions: [...versions].sort(byPublishedDesc).slice(0, limits.registryVersions).map(summary(skill)),
    dependencies: current.dependencies,
    formats: skill.formats,
    delivery: {
      url: `/api/deliver/${skill.id}`,
      // Only what the CDN holds is named: a paid or private skill's bundle is never written.
      ...(contentIsPublic(skill) ? { bundle: bundlePath(skill.slug, current.version) } : {}),
    },
  };
}

/**
 * The public face of a skill, the same in every document that shows one (the API's skill object,
 * the catalog entry, the registry document): identity, listing and its owner, never the author's
 * id or anything stored for internal use. `author` is the owner's login (a user's or an
 * organisation's), as older clients read it; `owner` says which.
 */
export function publicSkill(skill: SkillFacts): {
  id: string;
  slug: string;
  name: string;
  description: string;
  category: string;
  author: string;
  owner: Owner;
  visibility: Visibility;
  paid: boolean;
  price?: Price;
  deprecated?: string;
} {
  const owner = ownerOf(skill);
  return {
    id: skill.id,
    slug: skill.slug,
    name: skill.name,
    description: skill.description,
    category: skill.category,
    author: owner.login,
    owner: { type: owner.type, login: owner.login },
    visibility: visibilityOf(skill),
    paid: skill.paid,
    ...priceOf(skill),
    ...(skill.deprecated === undefined ? {} : { deprecated: skill.deprecated }),
  };
}

/** `{price}` for a paid skill that has one, else nothing: a free skill never shows a price. */
export function priceOf(skill: Pick<SkillFacts, 'paid' | 'price'>): { price?: Price } {
  return skill.paid && skill.price ? { price: { amount: skill.price.amount, currency: skill.price.currency } } : {};
}

export type VersionsDocument = z.output<typeof versionsDocumentSchema>;

/** Every version, newest publication first, so old installs and ranges always resolve. */
export function versionsDocument(skill: SkillFacts, all: VersionFacts[]): VersionsDocument {
  const versions = all.filter((v) => !refused(v));
  return {
    id: skill.id,
    slug: skill.slug,
    currentVersion: currentFacts(versions).version,
    versions: [...versions].sort(byPublishedDesc).map(summary(skill)),
  };
}

export type QuarantinedDocument = z.output<typeof quarantinedDocumentSchema>;

/**
 * What both registry paths of a quarantined skill hold (docs/api.md §11.2): who it is and that it
 * is quarantined, with nothing to install and no content or findings to read.
 */
export function quarantinedDocument(skill: SkillFacts): QuarantinedDocument {
  return { id: skill.id, slug: skill.slug, name: skill.name, author: ownerOf(skill).login, status: 'quarantined' };
}

export type PendingDocument = z.output<typeof pendingDocumentSchema>;

/**
 * Whether nothing of a skill can be installed by default yet: no version is cleared (a new
 * skill's first version is being observed, seconds after its publish).
 */
const awaitingObservation = (versions: readonly VersionFacts[]): boolean => !versions.some((v) => behaviourOf(v) === 'cleared');

/**
 * The two registry documents of a skill as the rebuild writes them: full (refused versions left
 * out, the default the newest cleared version), quarantined, or pending while nothing is cleared
 * yet: `{id, slug, name, author, status: "pending"}` (docs/api.md §11.2).
 */
export function registryDocuments(
  skill: SkillFacts,
  versions: VersionFacts[],
): { registry: RegistryDocument | QuarantinedDocument | PendingDocument; versions: VersionsDocument | QuarantinedDocument | PendingDocument } {
  if (skill.quarantine) return { registry: quarantinedDocument(skill), versions: quarantinedDocument(skill) };
  if (awaitingObservation(versions)) {
    const pending: PendingDocument = { id: skill.id, slug: skill.slug, name: skill.name, author: ownerOf(skill).login, status: 'pending' };
    return { registry: pending, versions: pending };
  }
  return { registry: registryDocument(skill, versions), versions: versionsDocument(skill, versions) };
}
