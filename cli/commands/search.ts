import type { CatalogEntry } from '../../core/catalog.ts';
import { buildIndex, search as searchIndex } from '../../core/catalog-search.ts';
import type { CommandIo } from '../ui.ts';
import { RegistryClient } from '../registry-client.ts';
import { columns, plural, truncate } from '../ui.ts';

export interface SearchOptions {
  registry: string;
  words: string[];
  limit: number;
}

export interface SearchResult {
  query: string;
  count: number;
  skills: CatalogEntry[];
}

/** `skillpress search <words>`: the catalog, filtered and ranked; no words lists everything. */
export async function search(options: SearchOptions, io: CommandIo): Promise<SearchResult> {
  const { ui } = io;
  const catalog = await new RegistryClient(options.registry, io).catalog();
  const query = options.words.join(' ').trim();
  // No words lists the whole catalog, in its order (by slug).
  const matches = query ? searchIndex(buildIndex(catalog.skills), query).matches : catalog.skills;
  const shown = matches.slice(0, options.limit);
  if (matches.length === 0) {
    ui.line(query ? `No skills match "${query}".` : 'The registry has no skills yet.');
  } else {
    const { c } = ui;
    for (const row of columns(
      shown.map((s) => [c.bold(s.slug), s.currentVersion, truncate(s.description, 60), c.dim(`by ${s.author}`) + (s.paid ? ` ${c.yellow('paid')}` : '')]),
    )) {
      ui.line(row);
    }
    const more = matches.length > shown.length ? ` (showing ${shown.length}; use --limit)` : '';
    ui.line(c.dim(`${plural(matches.length, 'skill')}${query ? ` match "${query}"` : ''}${more}. Install one with: skillpress install <slug>`));
  }
  return { query, count: matches.length, skills: shown };
}
