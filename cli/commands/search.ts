import type { SearchAnswerDocument } from '../../core/search/schemas.ts';
import type { CommandIo } from '../ui.ts';
import { RegistryClient } from '../registry-client.ts';
import { columns, plural, truncate } from '../ui.ts';

export interface SearchOptions {
  registry: string;
  words: string[];
  limit: number;
  category?: string;
  sort?: string;
}

export interface SearchResult {
  query: string;
  count: number;
  skills: SearchAnswerDocument['skills'];
  didYouMean?: string;
}

/**
 * `skillpress search <words>`: the registry's search (`GET /api/search`), ranked as its site ranks
 * it; no words lists the most installed skills. A query that finds nothing says so, with the
 * corrected query when a word looks misspelt.
 */
export async function search(options: SearchOptions, io: CommandIo): Promise<SearchResult> {
  const { ui } = io;
  const query = options.words.join(' ').trim();
  const answer = await new RegistryClient(options.registry, io).search({
    q: query,
    limit: options.limit,
    ...(options.category ? { category: options.category } : {}),
    ...(options.sort ? { sort: options.sort } : {}),
  });
  const { c } = ui;
  if (answer.skills.length === 0) {
    ui.line(query ? `No skill matches "${query}".` : options.category ? `No skills in ${options.category}.` : 'The registry has no skills yet.');
    if (answer.didYouMean) ui.line(`Did you mean "${answer.didYouMean}"? ${c.dim(`skillpress search ${answer.didYouMean}`)}`);
  } else {
    for (const row of columns(
      answer.skills.map((s) => [
        c.bold(s.slug),
        s.currentVersion,
        truncate(s.description, 60),
        c.dim(`by ${s.author}`) + (s.paid ? ` ${c.yellow('paid')}` : ''),
      ]),
    )) {
      ui.line(row);
    }
    const more = answer.total > answer.skills.length ? ` (showing ${answer.skills.length}; use --limit)` : '';
    const shown = answer.corrected ? answer.didYouMean : query;
    if (answer.corrected) ui.line(`No skill matches "${query}": these match "${answer.didYouMean}".`);
    else if (answer.didYouMean) ui.line(`Did you mean "${answer.didYouMean}"? ${c.dim(`skillpress search ${answer.didYouMean}`)}`);
    ui.line(c.dim(`${plural(answer.total, 'skill')}${shown ? ` match "${shown}"` : ''}${more}. Install one with: skillpress install <slug>`));
  }
  return { query, count: answer.total, skills: answer.skills, ...(answer.didYouMean ? { didYouMean: answer.didYouMean } : {}) };
}
