import type { CatalogEntry } from '#core/catalog';

/**
 * Catalog search: every word must appear somewhere (slug, name, description, category or
 * author, ignoring case); matches in the slug or name rank above matches in the description.
 * Pure, so the ranking is tested without a server.
 */
export function searchCatalog(skills: readonly CatalogEntry[], words: readonly string[]): CatalogEntry[] {
  const terms = words.flatMap((w) => w.toLowerCase().split(/\s+/)).filter(Boolean);
  if (terms.length === 0) return [...skills];
  const scored: { entry: CatalogEntry; score: number }[] = [];
  for (const entry of skills) {
    const name = `${entry.slug} ${entry.name}`.toLowerCase();
    const tags = `${entry.category} ${entry.author}`.toLowerCase();
    const description = entry.description.toLowerCase();
    let score = 0;
    let all = true;
    for (const term of terms) {
      const hit = (name.includes(term) ? 10 : 0) + (tags.includes(term) ? 3 : 0) + (description.includes(term) ? 1 : 0);
      if (hit === 0) all = false;
      score += hit;
    }
    if (!all) continue;
    if (entry.slug === terms.join('-')) score += 100;
    scored.push({ entry, score });
  }
  return scored.sort((a, b) => b.score - a.score || (a.entry.slug < b.entry.slug ? -1 : 1)).map((s) => s.entry);
}
