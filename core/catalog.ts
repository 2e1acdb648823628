import { DISCOVERY_SCHEMA, archivePath, registryPath, skillMdPath } from './static-paths.ts';
import type { z } from 'zod';
import { publicSkill, type SkillFacts } from './registry-document.ts';
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

export function catalogEntry(skill: SkillFacts, currentVersion: string): CatalogEntry {
  // Every skill in the catalog is public: saying so in each entry would only grow it.
  const { visibility: _public, ...listing } = publicSkill(skill);
  return {
    ...listing,
    currentVersion,
    createdAt: skill.createdAt,
    updatedAt: skill.updatedAt,
    registry: registryPath(skill.slug),
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

/**
 * A free skill's discovery entry: its current version as a `.tar.gz` with a `sha256:` digest,
 * described by that version's `SKILL.md` description (what Agent Skills clients show and match).
 * A deprecated skill's description starts with `[deprecated: <message>]`, so a `skills` user
 * sees it before installing (the index has no field of its own for it).
 */
export function discoveryEntry(skill: SkillFacts, version: string, archiveSha256Hex: string, description: string): DiscoveryEntry {
  return {
    name: skill.slug,
    type: 'archive',
    description: skill.deprecated === undefined ? description : `[deprecated: ${skill.deprecated}] ${description}`,
    url: archivePath(skill.slug, version),
    digest: `sha256:${archiveSha256Hex}`,
    version,
  };
}

/**
 * The discovery entry of a free skill whose current version is its `SKILL.md` alone: that file
 * itself (`type: "skill-md"`, as the discovery spec asks of single-file skills), with its digest.
 */
export function skillMdEntry(skill: SkillFacts, version: string, skillMdSha256Hex: string, description: string): DiscoveryEntry {
  return { ...discoveryEntry(skill, version, skillMdSha256Hex, description), type: 'skill-md', url: skillMdPath(skill.slug, version) };
}

/** The index of one skill (`/skills/<slug>/.well-known/agent-skills/index.json`), or of none once it has no entry. */
export function scopedDiscoveryJson(entry: DiscoveryEntry | undefined): string {
  return `${JSON.stringify(discoveryDocument(entry ? [entry] : []))}\n`;
}

export function discoveryDocument(entries: Iterable<DiscoveryEntry>): DiscoveryDocument {
  return { $schema: DISCOVERY_SCHEMA, skills: [...entries].sort(byKey((e) => e.name)) };
}

export const discoveryList = (entries: Iterable<DiscoveryEntry> = []) => new SortedJsonList<DiscoveryEntry>((e) => e.name, entries);

/** The bytes of {@link discoveryDocument} for the entries of `list`. */
export function discoveryJson(list: SortedJsonList<DiscoveryEntry>): string {
  return list.serialise({ $schema: DISCOVERY_SCHEMA }, 'skills');
}
