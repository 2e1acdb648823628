import { limits } from '#core/limits';
import type { RegistryDocument } from '#core/registry-document';
import { categoryPagePath, skillPagePath } from '#core/static-paths';
import { formatBytes, installCommand, utcDay } from './format.ts';

/**
 * What a skill page shows, derived from the skill's registry document. The page renders it at
 * build time; the browser renders the same model from the live registry JSON (for skills newer
 * than the build, or changed since), so both paths show exactly the same values.
 */
export interface SkillViewModel {
  slug: string;
  name: string;
  description: string;
  author: string;
  category: string;
  categoryHref: string;
  pageHref: string;
  currentVersion: string;
  paid: boolean;
  price: string;
  updated: string;
  updatedAt: string;
  install: string;
  versions: VersionViewModel[];
  /** The registry lists the most recent versions only; there may be older ones. */
  moreVersions: boolean;
  files: FileViewModel[];
  dependencies: { slug: string; range: string; href: string }[];
  hasDependencies: boolean;
  /** The immutable bundle of the current version (free skills only), for the file viewer. */
  bundle?: string;
  /** The author's deprecation message; empty while the skill is not deprecated (the banner hides). */
  deprecated: string;
}

export interface VersionViewModel {
  version: string;
  published: string;
  publishedAt: string;
  changelog: string;
  current: boolean;
  yanked: boolean;
  /** The row's class: `yanked` strikes the version through. */
  rowClass: string;
  /** What a yanked version says beside it: its reason, or that none was given. */
  yankNote: string;
}

export interface FileViewModel {
  filename: string;
  size: string;
}

export function skillViewModel(doc: RegistryDocument): SkillViewModel {
  return {
    slug: doc.slug,
    name: doc.name,
    description: doc.description,
    author: doc.author,
    category: doc.category,
    categoryHref: categoryPagePath(doc.category),
    pageHref: skillPagePath(doc.slug),
    currentVersion: doc.currentVersion,
    paid: doc.paid,
    price: doc.paid ? 'Paid' : 'Free',
    updated: utcDay(doc.updatedAt),
    updatedAt: doc.updatedAt,
    install: installCommand(doc.slug),
    versions: doc.versions.map((v) => versionViewModel(v, doc.currentVersion)),
    moreVersions: doc.versions.length >= limits.registryVersions,
    files: doc.files.map((f) => ({ filename: f.filename, size: formatBytes(f.size) })),
    dependencies: Object.entries(doc.dependencies)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([slug, range]) => ({ slug, range, href: skillPagePath(slug) })),
    hasDependencies: Object.keys(doc.dependencies).length > 0,
    ...(doc.delivery.bundle ? { bundle: doc.delivery.bundle } : {}),
    deprecated: doc.deprecated ?? '',
  };
}

export function versionViewModel(v: RegistryDocument['versions'][number], currentVersion: string): VersionViewModel {
  const yanked = v.yanked === true;
  return {
    version: v.version,
    published: utcDay(v.publishedAt),
    publishedAt: v.publishedAt,
    changelog: v.changelog,
    current: v.version === currentVersion,
    yanked,
    rowClass: yanked ? 'yanked' : '',
    yankNote: yanked ? `Yanked: ${v.yankReason ?? 'no reason given'}. Installed only where a lockfile pins it.` : '',
  };
}
