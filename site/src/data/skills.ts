import { join } from 'node:path';
import type { RegistryDocument } from '#core/registry-document';
import { loadSkills } from './skills-cache.ts';
import { sourceFromEnv } from './source.ts';

/**
 * The skills this build knows: every catalog skill's registry document, read once per build
 * from SKILLPRESS_DATA (see source.ts), validated by the zod schemas, through the cache in
 * SKILLPRESS_SITE_CACHE (Astro's cacheDir). Sorted by slug.
 */
let cached: Promise<RegistryDocument[]> | undefined;

export function allSkills(): Promise<RegistryDocument[]> {
  cached ??= (async () => {
    const source = sourceFromEnv();
    const cacheFile = join(process.env.SKILLPRESS_SITE_CACHE || join(process.cwd(), '.astro', 'cache'), 'skillpress-skills.json');
    const { skills, read, missing } = await loadSkills(source, cacheFile);
    console.log(
      `[skillpress] ${skills.length} skills from ${source.description}; ${read} registry ${read === 1 ? 'document' : 'documents'} read${missing ? `, ${missing} missing` : ''}`,
    );
    return skills.sort((a, b) => (a.slug < b.slug ? -1 : 1));
  })();
  return cached;
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
