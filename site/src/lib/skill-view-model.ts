import { limits } from '#core/limits';
import type { RegistryDocument } from '#core/registry-document';
import { type Provenance, provenanceLine, runUrl } from '#core/provenance';
import { sourceLine, sourceUrl, type VersionSource } from '#core/version-source';
import type { Finding, ScanResult } from '#core/scan/finding';
import type { Effects } from '#core/effects/effect';
import { evidenceLine, listedEffects, shownEffects } from '#core/effects/effect-words';
import { authorPagePath, categoryPagePath, skillPagePath } from '#core/static-paths';
import { formatBytes, installCommand, LOCAL_ORIGIN, priceLabel, skillsCommand, utcDay } from './format.ts';

/**
 * What a skill page shows, derived from the skill's registry document. The page renders it at
 * build time; the browser renders the same model from the live registry JSON (for skills newer
 * than the build, or changed since), so both paths show exactly the same values.
 */
export interface SkillViewModel {
  id: string;
  slug: string;
  name: string;
  description: string;
  author: string;
  authorHref: string;
  category: string;
  categoryHref: string;
  pageHref: string;
  currentVersion: string;
  paid: boolean;
  price: string;
  /** Paid and priced: it can be bought on its page. */
  forSale: boolean;
  /** Paid but not priced yet. */
  notForSale: boolean;
  updated: string;
  updatedAt: string;
  /** Our CLI's install command. */
  install: string;
  /** The `skills` CLI's, for a free skill; empty for a paid one (it installs only free skills). */
  installSkills: string;
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
  /** The scan of the current version: its verdict as a badge and a sentence, and each finding. */
  scanVerdict: string;
  scanClass: string;
  scanSummary: string;
  /** The verdict asks installers for --allow-suspicious. */
  suspicious: boolean;
  findings: FindingViewModel[];
  hasFindings: boolean;
  /** `Scanned 2026-11-28 with rules 2026.11.24-…`: when the scan ran (at publish or the last rescan). */
  scanned: string;
  /**
   * What the current version does outside its folder when run, as the registry observed it:
   * "When run, this skill…" and a sentence per effect, that it is still being observed, or (no
   * effects known: a version published before observation) nothing at all.
   */
  hasBehaviour: boolean;
  behaviourSummary: string;
  effects: EffectViewModel[];
  hasEffects: boolean;
  /** Where the current version was built, when CI published it: "built from owner/repo@sha by workflow", linking the run. */
  hasProvenance: boolean;
  provenance: string;
  provenanceUrl: string;
  /** Where a GitHub import read the current version: "imported from owner/repo@sha path", linking the folder at that commit. */
  hasImportSource: boolean;
  importSource: string;
  importSourceUrl: string;
}

export interface FindingViewModel {
  rule: string;
  severity: string;
  severityClass: string;
  /** `file:line`, or the file alone for a finding about a whole binary file. */
  location: string;
  /** The rule's reason and, for free skills only, a short excerpt (docs/scanning.md). */
  message: string;
}

export interface EffectViewModel {
  /** `reads your cloud credentials: ~/.aws/credentials` */
  sentence: string;
  /** Where it was read (`file:line`) or what was observed, for each time it was. */
  evidence: string;
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
  /** Where the version was built, when CI published it, linking the run. */
  hasProvenance: boolean;
  provenance: string;
  provenanceUrl: string;
  /** Where a GitHub import read the version, linking the folder at that commit. */
  hasImportSource: boolean;
  importSource: string;
  importSourceUrl: string;
}

export interface FileViewModel {
  filename: string;
  size: string;
}

/** `origin` is the registry's (the page's own): the install commands name it. */
export function skillViewModel(doc: RegistryDocument, origin = LOCAL_ORIGIN): SkillViewModel {
  return {
    id: doc.id,
    slug: doc.slug,
    name: doc.name,
    description: doc.description,
    author: doc.author,
    authorHref: authorPagePath(doc.author),
    category: doc.category,
    categoryHref: categoryPagePath(doc.category),
    pageHref: skillPagePath(doc.slug),
    currentVersion: doc.currentVersion,
    paid: doc.paid,
    price: priceLabel(doc),
    forSale: doc.paid && doc.price !== undefined,
    notForSale: doc.paid && doc.price === undefined,
    updated: utcDay(doc.updatedAt),
    updatedAt: doc.updatedAt,
    install: installCommand(doc.slug, origin),
    installSkills: doc.paid ? '' : skillsCommand(doc.slug, origin),
    versions: doc.versions.map((v) => versionViewModel(v, doc.currentVersion)),
    moreVersions: doc.versions.length >= limits.registryVersions,
    files: doc.files.map((f) => ({ filename: f.filename, size: formatBytes(f.size) })),
    dependencies: Object.entries(doc.dependencies)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([slug, range]) => ({ slug, range, href: skillPagePath(slug) })),
    hasDependencies: Object.keys(doc.dependencies).length > 0,
    ...(doc.delivery.bundle ? { bundle: doc.delivery.bundle } : {}),
    deprecated: doc.deprecated ?? '',
    ...scanViewModel(doc.scan, doc.slug, origin),
    scanned: scannedLine(doc),
    ...behaviourViewModel(doc.versions.find((v) => v.version === doc.currentVersion)),
    ...provenanceViewModel(doc.versions.find((v) => v.version === doc.currentVersion)?.provenance),
    ...importSourceViewModel(doc.versions.find((v) => v.version === doc.currentVersion)?.source),
  };
}

/** Each effect once, with every piece of evidence for it. */
const effectRows = (effects: Effects): EffectViewModel[] =>
  shownEffects(listedEffects(effects)).map((shown) => ({ sentence: shown.sentence, evidence: shown.evidence.map(evidenceLine).join('; ') }));

/** What the page says the current version does when run (docs/api.md, "Behaviour"); nothing when its effects are not known. */
function behaviourViewModel(
  current: RegistryDocument['versions'][number] | undefined,
): Pick<SkillViewModel, 'hasBehaviour' | 'behaviourSummary' | 'effects' | 'hasEffects'> {
  const { behaviour, effects } = (current ?? {}) as { behaviour?: unknown; effects?: Effects };
  let rows: EffectViewModel[] | undefined;
  try {
    rows = effects === undefined ? undefined : effectRows(effects);
  } catch {
    // A document this page cannot read claims nothing rather than breaking the page.
    rows = undefined;
  }
  const pending = behaviour === 'pending';
  if (!rows && !pending) return { hasBehaviour: false, behaviourSummary: '', effects: [], hasEffects: false };
  const summary = pending
    ? rows && rows.length > 0
      ? 'This version is being observed: what it does when run is not known yet. Its text says that, when run, this skill…'
      : 'This version is being observed: what it does when run is not known yet.'
    : rows!.length > 0
      ? 'When run, this skill…'
      : 'When run, this skill does nothing outside its own folder.';
  return { hasBehaviour: true, behaviourSummary: summary, effects: rows ?? [], hasEffects: (rows ?? []).length > 0 };
}

/** When the current version's scan ran and under which rules, as peers date their audits; '' with no scan. */
function scannedLine(doc: RegistryDocument): string {
  const current = doc.versions.find((v) => v.version === doc.currentVersion);
  const when = current?.scannedAt ?? current?.publishedAt;
  return doc.scan && when ? `Scanned ${utcDay(when)} with rules ${doc.scan.rulesVersion}.` : '';
}

/** The "built from" line of a version a CI workflow published (docs/api.md §7.14), or nothing to show. */
function provenanceViewModel(provenance: Provenance | undefined): Pick<VersionViewModel, 'hasProvenance' | 'provenance' | 'provenanceUrl'> {
  return provenance
    ? { hasProvenance: true, provenance: provenanceLine(provenance), provenanceUrl: runUrl(provenance) }
    : { hasProvenance: false, provenance: '', provenanceUrl: '' };
}

/** The "imported from" line of a version a GitHub import published (docs/api.md §7.16), or nothing to show. */
function importSourceViewModel(source: VersionSource | undefined): Pick<VersionViewModel, 'hasImportSource' | 'importSource' | 'importSourceUrl'> {
  return source
    ? { hasImportSource: true, importSource: sourceLine(source), importSourceUrl: sourceUrl(source) }
    : { hasImportSource: false, importSource: '', importSourceUrl: '' };
}

/** What the page says about a scan; a version published before scanning has none. */
function scanViewModel(
  scan: ScanResult | undefined,
  slug: string,
  origin: string,
): Pick<SkillViewModel, 'scanVerdict' | 'scanClass' | 'scanSummary' | 'suspicious' | 'findings' | 'hasFindings'> {
  const findings = (scan?.findings ?? []).map(findingViewModel);
  const count = `${findings.length} ${findings.length === 1 ? 'finding' : 'findings'}`;
  const summary = !scan
    ? 'This version was published before scanning and has not been scanned yet.'
    : scan.verdict === 'suspicious'
      ? `Flagged as suspicious (${count}): read ${findings.length === 1 ? 'it' : 'them'} before you install. The command line installs it only when asked: ${installCommand(slug, origin)} --allow-suspicious`
      : findings.length > 0
        ? `No risky patterns; ${count} worth knowing about.`
        : 'No risky patterns found.';
  return {
    scanVerdict: scan?.verdict ?? 'not scanned',
    scanClass: `badge ${scan?.verdict ?? 'unscanned'}`,
    scanSummary: summary,
    suspicious: scan?.verdict === 'suspicious',
    findings,
    hasFindings: findings.length > 0,
  };
}

function findingViewModel(f: Finding): FindingViewModel {
  return {
    rule: f.rule,
    severity: f.severity,
    severityClass: `badge severity-${f.severity}`,
    location: f.line > 0 ? `${f.file}:${f.line}` : f.file,
    message: f.message,
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
    ...provenanceViewModel(v.provenance),
    ...importSourceViewModel(v.source),
  };
}
