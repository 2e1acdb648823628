import { DISCOVERY_SCHEMA, archivePath, registryPath, SKILL_INDEX_MARK, skillMdPath } from './static-paths.ts';
import type * as z from 'zod/mini';
import { publicSkill, type SkillFacts } from './registry-document.ts';
import { type Judged, standingVerdict } from './scan/standing-verdict.ts';
import type { catalogDocumentSchema, catalogEntrySchema, discoveryDocumentSchema } from './schemas.ts';
import { SortedJsonList } from './sorted-json-list.ts';

/**
 * The catalog `/.well-known/skills.json` and the Agent Skills discovery index. Both are kept as
 * maps keyed by slug so a rebuild replaces one skill's entry without reading any other skill.
 */

export type CatalogEntry = z.output<typeof catalogEntrySchema>;
export type CatalogDocument = z.output<typeof catalogDocumentSchema>;
export type DiscoveryDocument = z.output<typeof discoveryDocumentSchema>;
export type DiscoveryEntry = DiscoveryDocument['skills'][number];

/**
 * A skill's catalog entry. The catalog lists every public skill whatever its verdict, each with
 * the verdict its current version (`judged`: its scan and run) stands under: it is the complete
 * list, for readers that can weigh a verdict.
 */
export function catalogEntry(skill: SkillFacts, currentVersion: string, judged?: Judged): CatalogEntry {
  // Every skill in the catalog is public: saying so in each entry would only grow it.
  const { visibility: _public, ...listing } = publicSkill(skill);
  return {
    ...listing,
    currentVersion,
    createdAt: skill.createdAt,
    updatedAt: skill.updatedAt,
    registry: registryPath(skill.slug),
    verdict: standingVerdict(judged),
  };
}

/** Orders by a string key in code-unit order, which is stable across locales. */
const byKey =
  <T>(key: (item: T) => string) =>
  (a: T, b: T): number => {
    const x = key(a);
    const y = key(b);
    return x < y ? -1 : x > y ? 1 : 0;
  };

export function catalogDocument(entries: Iterable<CatalogEntry>, generatedAt: string): CatalogDocument {
  const skills = [...entries].sort(byKey((e) => e.slug));
  return { schemaVersion: 1, generatedAt, count: skills.length, skills };
}

/** The catalog's entries as a rebuild keeps them between writes: serialising is a join. */
export const catalogList = (entries: Iterable<CatalogEntry> = []) => new SortedJsonList<CatalogEntry>((e) => e.slug, entries);

/** The bytes of {@link catalogDocument} for the entries of `list`, without walking each entry. */
export function catalogJson(list: SortedJsonList<CatalogEntry>, generatedAt: string): string {
  return list.serialise({ schemaVersion: 1, generatedAt, count: list.size }, 'skills');
}

/** The longest description discovery clients take: `skills` skips an entry with a longer one. */
const DISCOVERY_DESCRIPTION_MAX = 1024;

/**
 * A free skill's discovery entry: its current version (`judged`: its scan and run) as a `.tar.gz` with
 * a `sha256:` digest, described by that version's `SKILL.md` description (what Agent Skills
 * clients show and match). The index has no field of its own for a warning, so the description
 * starts with one: `[suspicious: …]` for a version that does not stand as clean (which also
 * carries `verdict`, and is listed in its own index alone: {@link inSharedIndexes}), then
 * `[deprecated: <message>]` for a deprecated skill, cut to the length clients take.
 */
export function discoveryEntry(skill: SkillFacts, version: string, archiveSha256Hex: string, description: string, judged?: Judged): DiscoveryEntry {
  const verdict = standingVerdict(judged);
  const warnings = [
    ...(verdict === 'clean' ? [] : [`[${verdict}: flagged by this registry's scan or its run in a sandbox; read why on the skill's page before use]`]),
    ...(skill.deprecated === undefined ? [] : [`[deprecated: ${skill.deprecated}]`]),
  ];
  const text = [...warnings, description].join(' ');
  return {
    name: skill.slug,
    type: 'archive',
    description: text.length > DISCOVERY_DESCRIPTION_MAX ? `${text.slice(0, DISCOVERY_DESCRIPTION_MAX - 1)}…` : text,
    url: archivePath(skill.slug, version),
    digest: `sha256:${archiveSha256Hex}`,
    version,
    ...(verdict === 'clean' ? {} : { verdict }),
  };
}

/**
 * The discovery entry of a free skill whose current version is its `SKILL.md` alone: that file
 * itself (`type: "skill-md"`, as the discovery spec asks of single-file skills), with its digest.
 */
export function skillMdEntry(skill: SkillFacts, version: string, skillMdSha256Hex: string, description: string, judged?: Judged): DiscoveryEntry {
  return { ...discoveryEntry(skill, version, skillMdSha256Hex, description, judged), type: 'skill-md', url: skillMdPath(skill.slug, version) };
}

/**
 * Whether an entry belongs in the shared discovery indexes (`/.well-known/agent-skills/` and
 * `/.well-known/skills/`). Their readers (`skills add <origin>`) install without showing any
 * verdict, so a skill that does not stand as clean is listed only in its own index, which a
 * reader reaches from the skill's page, where the findings are.
 */
export function inSharedIndexes(entry: DiscoveryEntry): boolean {
  return entry.verdict === undefined;
}

/**
 * The index of one skill (`/skills/<slug>/.well-known/agent-skills/index.json`), or of none once
 * it has no entry. Its artifact URL carries {@link SKILL_INDEX_MARK}, so a download through it is
 * told from one through the shared index, which counts nothing (docs/api.md §10.2).
 */
export function scopedDiscoveryJson(entry: DiscoveryEntry | undefined): string {
  return `${JSON.stringify(discoveryDocument(entry ? [{ ...entry, url: `${entry.url}?${SKILL_INDEX_MARK}` }] : []))}\n`;
}

export function discoveryDocument(entries: Iterable<DiscoveryEntry>): DiscoveryDocument {
  return { $schema: DISCOVERY_SCHEMA, skills: [...entries].sort(byKey((e) => e.name)) };
}

export const discoveryList = (entries: Iterable<DiscoveryEntry> = []) => new SortedJsonList<DiscoveryEntry>((e) => e.name, entries);

/** The bytes of {@link discoveryDocument} for the entries of `list`. */
export function discoveryJson(list: SortedJsonList<DiscoveryEntry>): string {
  return list.serialise({ $schema: DISCOVERY_SCHEMA }, 'skills');
}
