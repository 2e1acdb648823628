import { highlight } from '#core/search/highlight';
import { type SearchAnswer, type SearchHit, search } from '#core/search/query';
import { SEARCH_SORTS, type SearchSort } from '#core/search/documents';
import { tokens } from '#core/search/text';
import { type InstallsDocument, installsOf } from '#core/public-installs';
import { formatCount, installsLabel, priceLabel } from '../lib/format.ts';
import { authorHref, skillHref } from '../lib/skill-links.ts';
import { row } from './fill.ts';
import { publicInstalls } from './public-installs.ts';
import { SearchIndexLoader } from './search-index.ts';

/**
 * The search on the home page (docs/search.md): as you type, in the browser, over the static
 * search index, which is loaded when the box is first focused (or at once when the page is opened
 * with `?q=`). Results take the place of the lists below the box, with the words that matched
 * marked; filters (category, price) and the order are form controls, and the state is in the
 * URL (`q`, `category`, `price`, `sort`), so a search can be shared and the back button works.
 * Arrow keys move between the box and the results; Escape clears the search.
 */
const form = document.querySelector<HTMLFormElement>('form[data-search]');
const input = form?.querySelector<HTMLInputElement>('input[type=search]');
const list = document.getElementById('skill-list');
const template = document.getElementById('skill-card') as HTMLTemplateElement | null;
const status = document.getElementById('search-status');
const suggestion = document.getElementById('search-suggestion');
const heading = document.querySelector<HTMLElement>('[data-role=list-heading]');
const popular = document.querySelector<HTMLElement>('[data-role=popular]');
const category = form?.querySelector<HTMLSelectElement>('select[name=category]');
const price = form?.querySelector<HTMLSelectElement>('select[name=price]');
const sort = form?.querySelector<HTMLSelectElement>('select[name=sort]');

const SHOWN = 60;
/** After this long without a keystroke, the search takes in the SKILL.md texts too. */
const PAUSE_MS = 150;

if (form && input && list && template && status && heading) {
  const initial = [...list.children];
  const initialHeading = heading.textContent ?? '';
  const builtFrom = list.dataset.builtFrom ?? '';
  let typing = false;
  const loader = new SearchIndexLoader(() => void update(false));
  // The public install counts, as the cards of the built page show them: a result shows the
  // index's total until they arrive (a list without them still works).
  let installs: InstallsDocument | undefined;
  let installsAsked = false;
  const loadInstalls = () => {
    if (installsAsked) return;
    installsAsked = true;
    void publicInstalls().then((document) => {
      installs = document;
      if (document && list.dataset.results !== undefined) void update(false);
    });
  };

  const filters = () => ({
    ...(category?.value ? { category: category.value } : {}),
    ...(price?.value === 'free' ? { paid: false } : price?.value === 'paid' ? { paid: true } : {}),
    sort: (SEARCH_SORTS as readonly string[]).includes(sort?.value ?? '') ? (sort!.value as SearchSort) : 'relevance',
  });
  const filtered = () => Boolean(category?.value || price?.value);

  /** The URL says what is shown: `q` and the filters, only those set. */
  const remember = (query: string) => {
    const url = new URL(location.href);
    const set = (name: string, value: string | undefined) => (value ? url.searchParams.set(name, value) : url.searchParams.delete(name));
    set('q', query);
    set('category', category?.value);
    set('price', price?.value);
    set('sort', sort?.value && sort.value !== 'relevance' ? sort.value : undefined);
    history.replaceState(null, '', url);
  };

  const restore = () => {
    list.replaceChildren(...initial);
    delete list.dataset.results;
    document.documentElement.removeAttribute('data-searching');
    heading.textContent = initialHeading;
    status.textContent = '';
    suggestion?.classList.remove('shown');
    if (popular) popular.hidden = false;
  };

  let latest = 0;
  let pause: ReturnType<typeof setTimeout> | undefined;
  const update = async (fromInput: boolean) => {
    clearTimeout(pause);
    pause = undefined;
    if (fromInput) typing = true;
    const query = input.value.trim();
    const ticket = ++latest;
    remember(query);
    if (!query && !filtered()) {
      restore();
      return;
    }
    document.documentElement.setAttribute('data-searching', '');
    if (popular) popular.hidden = true;
    loadInstalls();
    if (loader.index.skills.length === 0) {
      status.textContent = 'Loading the search index…';
      try {
        await loader.load();
      } catch {
        if (ticket === latest) status.textContent = 'The search index could not be loaded; try again.';
        return;
      }
      return; // loading announces itself, and the search runs then
    }
    if (ticket !== latest) return;
    // While typing, the last word may be unfinished; opened by URL or by a filter, it is whole.
    // A keystroke searches the listings at once, and everything once typing pauses (docs/search.md).
    const answer = search(loader.index, query, { ...filters(), limit: SHOWN, typing: typing && !/\s$/.test(input.value), texts: !fromInput });
    show(query, answer, !fromInput);
    if (fromInput) pause = setTimeout(() => void update(false), PAUSE_MS);
  };

  // What the list shows, so a search that finds the same (the pause's, a shard's arrival) leaves it,
  // and the result the keyboard is on, alone.
  let shownList = '';
  /** Shows an answer; `whole` when the texts were searched too (the list says which, as `data-results`). */
  const show = (query: string, answer: SearchAnswer, whole: boolean) => {
    const partial = typing ? (tokens(query).at(-1) ?? '') : '';
    const listed = JSON.stringify([partial, installs !== undefined, answer.hits.map((hit) => [hit.slug, hit.installs, hit.terms])]);
    if (listed !== shownList || list.dataset.results === undefined) list.replaceChildren(...answer.hits.map((hit) => card(hit, partial)));
    shownList = listed;
    list.dataset.results = whole ? 'whole' : 'listings';
    heading.textContent = query ? 'Search results' : 'Skills';
    const more = loader.complete ? '' : ' (still loading the rest of the index)';
    const shown = answer.corrected ? `No skill matches “${query}”; showing what matches “${answer.didYouMean}”. ` : '';
    status.textContent =
      shown +
      (answer.total === 0
        ? `No skill matches “${query}”${filtered() ? ' with these filters' : ''}.${more}`
        : answer.total > answer.hits.length
          ? `${formatCount(answer.total)} skills match; showing the best ${answer.hits.length}.${more}`
          : `${formatCount(answer.total)} ${answer.total === 1 ? 'skill matches' : 'skills match'}.${more}`);
    if (suggestion) {
      suggestion.classList.toggle('shown', Boolean(answer.didYouMean) && !answer.corrected);
      const link = suggestion.querySelector('a');
      if (link && answer.didYouMean) {
        link.textContent = answer.didYouMean;
        const url = new URL(location.href);
        url.searchParams.set('q', answer.didYouMean);
        link.href = url.pathname + url.search;
      }
    }
  };

  /** A result card, its name and description with the matched words in <mark>. */
  const card = (hit: SearchHit, partial: string): DocumentFragment => {
    const fragment = row(template, {
      ...hit,
      href: skillHref(hit, builtFrom),
      authorHref: authorHref(hit, builtFrom),
      price: priceLabel(hit),
      priceClass: `badge ${hit.paid ? 'paid' : 'free'}`,
      installs: installs
        ? installsLabel(installsOf(installs, hit.slug))
        : hit.installs > 0
          ? `${formatCount(hit.installs)} ${hit.installs === 1 ? 'install' : 'installs'}`
          : 'No installs yet',
    });
    for (const field of ['name', 'description'] as const) {
      const element = fragment.querySelector<HTMLElement>(`[data-field=${field}]`);
      if (element) marked(element, hit[field], hit.terms, partial);
    }
    return fragment;
  };

  input.addEventListener(
    'focus',
    () => {
      void loader.load().catch(() => undefined);
      loadInstalls();
    },
    { once: true },
  );
  input.addEventListener('input', () => void update(true));
  for (const control of [category, price, sort]) control?.addEventListener('change', () => void update(false));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    typing = false;
    void update(false);
  });
  suggestion?.querySelector('a')?.addEventListener('click', (event) => {
    event.preventDefault();
    input.value = suggestion.querySelector('a')?.textContent ?? '';
    typing = false;
    void update(false);
    input.focus();
  });

  // Keyboard: from the box, ArrowDown goes to the first result; in the results, the arrows move
  // between them (ArrowUp from the first goes back to the box); Escape clears the search.
  const links = () => [...list.querySelectorAll<HTMLAnchorElement>('li h3 a')];
  input.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown' && list.dataset.results !== undefined) {
      // Moving into the results ends the typing: what is shown stays, rather than change under the keyboard.
      clearTimeout(pause);
      pause = undefined;
      const first = links()[0];
      if (first) {
        event.preventDefault();
        first.focus();
      }
    } else if (event.key === 'Escape' && input.value) {
      event.preventDefault();
      input.value = '';
      void update(true);
    }
  });
  list.addEventListener('keydown', (event) => {
    if (list.dataset.results === undefined) return;
    const all = links();
    const at = all.indexOf(document.activeElement as HTMLAnchorElement);
    if (at < 0) return;
    if (event.key === 'ArrowDown' && at < all.length - 1) {
      event.preventDefault();
      all[at + 1]!.focus();
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      (at === 0 ? input : all[at - 1]!).focus();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      input.focus();
    }
  });

  // Opened with a search in the URL (a shared link, the back button): run it at once.
  const params = new URLSearchParams(location.search);
  const select = (control: HTMLSelectElement | null | undefined, value: string | null) => {
    if (control && value && [...control.options].some((o) => o.value === value)) control.value = value;
  };
  select(category, params.get('category'));
  select(price, params.get('price'));
  select(sort, params.get('sort'));
  input.value = params.get('q') ?? '';
  if (input.value || filtered()) void update(false);
}

/** Puts `text` into `element` as text nodes, the words the search matched inside <mark>. */
function marked(element: HTMLElement, text: string, terms: readonly string[], partial: string): void {
  element.replaceChildren(
    ...highlight(text, terms, partial.length >= 2 ? [partial] : []).map((segment) => {
      if (!segment.mark) return document.createTextNode(segment.text);
      const mark = document.createElement('mark');
      mark.textContent = segment.text;
      return mark;
    }),
  );
}
