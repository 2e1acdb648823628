import { search } from '#core/search/query';
import { SearchIndexLoader } from '../../site/src/scripts/search-index.ts';

/**
 * What `npm run bench search` runs inside Chromium: the site's own loader and the search it runs
 * on every keystroke, timed with the page's clock. Bundled by esbuild into one script.
 */
const loader = new SearchIndexLoader();

async function load(): Promise<{ headMs: number; allMs: number }> {
  const started = performance.now();
  await loader.load();
  const headMs = performance.now() - started;
  while (!loader.complete) await new Promise((resolve) => setTimeout(resolve, 5));
  return { headMs, allMs: performance.now() - started };
}

/** Types each query a letter at a time, searching at each keystroke as the site does (the listings); the time of each search. */
function keystrokes(queries: string[]): number[] {
  const times: number[] = [];
  for (const query of queries) {
    for (let n = 1; n <= query.length; n++) {
      const started = performance.now();
      search(loader.index, query.slice(0, n), { typing: true, limit: 60, texts: false });
      times.push(performance.now() - started);
    }
  }
  return times;
}

/** The search the site runs when typing pauses on each whole query: listings and texts. */
function pauses(queries: string[]): number[] {
  return queries.map((query) => {
    const started = performance.now();
    search(loader.index, query, { typing: true, limit: 60 });
    return performance.now() - started;
  });
}

(globalThis as unknown as { searchBench: unknown }).searchBench = { load, keystrokes, pauses };
