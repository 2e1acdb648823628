import { bundleIntegrity, decodeFile, type FileBytes, fileEntries } from '#core/bundle';
import { mapLimit } from '#core/map-limit';
import { putBlobs } from '#functions/content/blobs';
import type { Deps } from '#functions/platform/composition';
import { putItems } from '#functions/store/db';
import { type SkillItem, skillRecord, slugRecord, type VersionItem, versionRecord } from '#functions/store/skills';
import { upsertUser } from '#functions/store/users';

/**
 * Bulk seeding straight into the store (not through the rate-limited API), in the same item
 * shapes the publish path writes, for benchmarks and large local demos.
 */
export interface SeedOptions {
  count: number;
  authorLogin?: string;
  /** Every `manyVersionsEvery`-th skill gets `manyVersions` versions instead of one. */
  manyVersionsEvery?: number;
  manyVersions?: number;
  slugPrefix?: string;
  /** The listing of the `index`-th skill, and the description its SKILL.md gives (else the seed's own). */
  listing?: (index: number) => { name: string; description: string; category: string; body: string };
}

export const SEED_DESCRIPTION = 'A seeded skill';

/**
 * The files of every version of the seeded skill `slug` (benchmarks give a peer registry the
 * same ones): a valid Agent Skill, so `SKILL.md` names the slug, and an executable script.
 */
export function seedFiles(slug: string, listing?: { description: string; body: string }) {
  const description = listing ? JSON.stringify(listing.description) : SEED_DESCRIPTION;
  return [
    { filename: 'SKILL.md', content: `---\nname: ${slug}\ndescription: ${description}\n---\n${listing?.body ?? '# Seeded\n\nFollow these steps.\n'}` },
    { filename: 'scripts/run.sh', content: '#!/bin/sh\necho seeded\n', executable: true },
  ];
}

/** The versions of the `index`-th seeded skill, oldest first. */
export function seedVersions(index: number, options: Pick<SeedOptions, 'manyVersionsEvery' | 'manyVersions'>): string[] {
  const many = options.manyVersionsEvery && index % options.manyVersionsEvery === 0 ? (options.manyVersions ?? 50) : 1;
  return Array.from({ length: many }, (_, v) => `1.${v}.0`);
}

export const seedSlug = (index: number, prefix = 'seeded') => `${prefix}-${String(index).padStart(6, '0')}`;

export async function seedSkills(deps: Deps, options: SeedOptions): Promise<SkillItem[]> {
  const login = options.authorLogin ?? 'seed';
  const author = await upsertUser(deps.db, { id: `dev:${login}`, login }, deps.clock());
  const now = deps.clock();
  const skills: SkillItem[] = [];
  const records: Record<string, unknown>[] = [];
  const uploads: FileBytes[][] = [];
  for (let i = 0; i < options.count; i++) {
    const versions = seedVersions(i, options);
    const at = new Date(now.getTime() - (options.count - i) * 1000).toISOString();
    const slug = seedSlug(i, options.slugPrefix);
    const listing = options.listing?.(i);
    const files = seedFiles(slug, listing).map((f) => decodeFile(f)!);
    uploads.push(files);
    const stored = fileEntries(files).map((f) => ({ ...f, encoding: 'utf8' as const, ...(f.filename === 'SKILL.md' ? {} : { executable: true }) }));
    const integrity = bundleIntegrity(files);
    const skill: SkillItem = {
      id: crypto.randomUUID(),
      slug,
      name: listing?.name ?? `Seeded skill ${i}`,
      description: listing?.description ?? `Seeded skill number ${i} for benchmarks and demos`,
      category: listing?.category ?? ['dev-tools', 'writing', 'data', 'testing', 'ops'][i % 5]!,
      authorId: author.id,
      authorLogin: author.login,
      owner: { type: 'user', login: author.login },
      paid: false,
      formats: ['agent-skills'],
      currentVersion: versions.at(-1)!,
      createdAt: at,
      updatedAt: at,
    };
    skills.push(skill);
    records.push(skillRecord(skill), slugRecord(skill.slug, skill.id, author.id, now));
    for (const [n, version] of versions.entries()) {
      const item: VersionItem = {
        skillId: skill.id,
        version,
        changelog: `Release ${version}`,
        publishedAt: new Date(Date.parse(at) + n).toISOString(),
        files: stored,
        dependencies: {},
        integrity,
        frontMatterDescription: listing?.description ?? SEED_DESCRIPTION,
      };
      records.push(versionRecord(item));
    }
  }
  // Only SKILL.md differs from skill to skill; the script is one blob.
  await mapLimit(uploads, 8, (files) => putBlobs(deps.blobs, files));
  await putItems(deps.db, records);
  return skills;
}
