import { getCollection } from 'astro:content';
import type { RegistryDocument } from '#core/registry-document';

/**
 * The skills the build knows, as the registry documents the loader validated. Astro's
 * collection entries are untyped here (the schema is zod 4, Astro's own is zod 3), so the type
 * comes from the same schema the loader parsed with.
 */
let cached: Promise<RegistryDocument[]> | undefined;

export function allSkills(): Promise<RegistryDocument[]> {
  cached ??= getCollection('skills').then((entries) => entries.map((e) => e.data as RegistryDocument).sort((a, b) => (a.slug < b.slug ? -1 : 1)));
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
