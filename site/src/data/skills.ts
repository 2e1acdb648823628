import { join } from 'node:path';
import type { InstallsDocument } from '#core/public-installs';
import type { RegistryDocument } from '#core/registry-document';
import type { RenderedSkillFile } from '../lib/skill-file-rendering.ts';
import { skillFileRenderer } from './build-skill-file-renderer.ts';
import { type LoadedSkills, loadSkills } from './skills-cache.ts';
import { sourceFromEnv } from './source.ts';

/**
 * The skills this build knows: every catalog skill's registry document, read once per build
 * from SKILLPRESS_DATA (see source.ts), validated by the zod schemas, through the cache in
 * SKILLPRESS_SITE_CACHE (Astro's cacheDir). Sorted by slug.
 */
let cached: Promise<LoadedSkills & { installs?: InstallsDocument }> | undefined;

function load() {
  cached ??= (async () => {
    const source = sourceFromEnv();
    const cacheFile = join(process.env.SKILLPRESS_SITE_CACHE || join(process.cwd(), '.astro', 'cache'), 'skillpress-skills.json');
    const [loaded, installs] = await Promise.all([loadSkills(source, cacheFile, skillFileRenderer), source.installs()]);
    const { skills, read, missing } = loaded;
    console.log(
      `[skillpress] ${skills.length} skills from ${source.description}; ${read} registry ${read === 1 ? 'document' : 'documents'} read${missing ? `, ${missing} missing` : ''}`,
    );
    skills.sort((a, b) => (a.slug < b.slug ? -1 : 1));
    return { ...loaded, installs };
  })();
  return cached;
}

export async function allSkills(): Promise<RegistryDocument[]> {
  return (await load()).skills;
}

/** A free skill's `SKILL.md`, rendered; undefined for paid skills and bundles without a text one. */
export async function skillFileOf(slug: string): Promise<RenderedSkillFile | undefined> {
  return (await load()).skillFiles.get(slug);
}

/** The public install counts as the build read them (undefined before any were written). */
export async function installCounts(): Promise<InstallsDocument | undefined> {
  return (await load()).installs;
}

/** Skills by category, categories in name order. */
export async function skillsByCategory(): Promise<Map<string, RegistryDocument[]>> {
  const byCategory = new Map<string, RegistryDocument[]>();
  for (const skill of await allSkills()) {
    const list = byCategory.get(skill.category) ?? [];
    list.push(skill);
    byCategory.set(skill.category, list);
  }
  return new Map([...byCategory].sort(([a], [b]) => (a < b ? -1 : 1)));
}
