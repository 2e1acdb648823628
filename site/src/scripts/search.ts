import type { CatalogEntry } from '#core/catalog';
import { buildIndex, type SearchIndex, search } from '#core/catalog-search';
import type { InstallsDocument } from '#core/public-installs';
import { row } from './fill.ts';
import { cardModel, fetchLiveCatalog } from './live-catalog.ts';

/**
 * Instant search on the home page, over the live catalog (`/.well-known/skills.json`, the file
 * the CLI reads too, revalidated rather than taken from the browser's cache), so skills
 * published since the site build are found as well. The catalog is
 * fetched once, when the visitor first focuses the box; each keystroke then searches in memory.
 * While a query is typed, the results take the place of the lists below the box.
 */
const form = document.querySelector<HTMLFormElement>('form[data-search]');
const input = form?.querySelector<HTMLInputElement>('input[type=search]');
const list = document.getElementById('skill-list');
const template = document.getElementById('skill-card') as HTMLTemplateElement | null;
const status = document.getElementById('search-status');
const heading = document.querySelector<HTMLElement>('[data-role=list-heading]');
const popular = document.querySelector<HTMLElement>('[data-role=popular]');

if (form && input && list && template && status && heading) {
  const initial = [...list.children];
  const initialHeading = heading.textContent ?? '';
  const builtFrom = list.dataset.builtFrom ?? '';
  let index: Promise<{ index: SearchIndex<CatalogEntry>; installs?: InstallsDocument }> | undefined;
  const loadIndex = () => (index ??= fetchLiveCatalog().then(({ skills, installs }) => ({ index: buildIndex(skills), installs })));

  let latest = 0;
  const update = async () => {
    const query = input.value.trim();
    const ticket = ++latest;
    const url = new URL(location.href);
    if (query) url.searchParams.set('q', query);
    else url.searchParams.delete('q');
    history.replaceState(null, '', url);
    if (popular) popular.hidden = query !== '';
    if (!query) {
      list.replaceChildren(...initial);
      heading.textContent = initialHeading;
      status.textContent = '';
      return;
    }
    if (!index) status.textContent = 'Loading the catalog…';
    let result: ReturnType<typeof search<CatalogEntry>>;
    let installs: InstallsDocument | undefined;
    try {
      const loaded = await loadIndex();
      result = search(loaded.index, query, 60);
      installs = loaded.installs;
    } catch {
      index = undefined;
      status.textContent = 'The catalog could not be loaded; try again.';
      return;
    }
    if (ticket !== latest) return; // a newer keystroke has already answered
    list.replaceChildren(...result.matches.map((skill) => row(template, cardModel(skill, builtFrom, installs))));
    heading.textContent = 'Search results';
    status.textContent =
      result.total === 0
        ? `No skills match “${query}”.`
        : result.total > result.matches.length
          ? `${result.total} skills match; showing the best ${result.matches.length}.`
          : `${result.total} ${result.total === 1 ? 'skill matches' : 'skills match'}.`;
  };

  form.addEventListener('submit', (event) => event.preventDefault());
  input.addEventListener('focus', () => void loadIndex().catch(() => undefined), { once: true });
  input.addEventListener('input', () => void update());
  const q = new URLSearchParams(location.search).get('q');
  if (q) {
    input.value = q;
    void update();
  }
}
