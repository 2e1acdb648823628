import { describe, expect, it } from 'vitest';
import type { SearchDocument, SearchText } from '#core/search/documents';
import { popularity } from '#core/search/documents';
import { highlight } from '#core/search/highlight';
import { newSkillsIndex, newTextIndex, shardOf } from '#core/search/index-files';
import { type LoadedSearchIndex, parseQuery, search, typosAllowed } from '#core/search/query';
import { skillText, TEXT_CHARS } from '#core/search/skill-text';
import { fold, STOP_WORDS, stem, tokens } from '#core/search/text';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const daysAgo = (days: number) => new Date(NOW - days * 86_400_000).toISOString();

function doc(slug: string, description: string, extra: Partial<SearchDocument> = {}): SearchDocument {
  return {
    slug,
    name: slug
      .split('-')
      .map((w) => w[0]!.toUpperCase() + w.slice(1))
      .join(' '),
    description,
    category: 'tools',
    author: 'someone',
    currentVersion: '1.0.0',
    updatedAt: daysAgo(400),
    paid: false,
    installs: 0,
    ...extra,
  };
}

/** An index of `docs` (one head shard) and `texts` (one text shard), as the rebuild writes them. */
function indexOf(docs: SearchDocument[], texts: Omit<SearchText, 'version' | 'sha256'>[] = []): LoadedSearchIndex {
  const skills = newSkillsIndex();
  skills.addAll(docs);
  const text = newTextIndex();
  text.addAll(texts.map((t) => ({ ...t, version: '1.0.0', sha256: 'x' })));
  return { skills: [skills], text: [text], maxInstalls: Math.max(0, ...docs.map((d) => d.installs)) };
}

const slugs = (index: LoadedSearchIndex, query: string, options = {}) => search(index, query, { now: NOW, ...options }).hits.map((h) => h.slug);

const catalog = indexOf(
  [
    doc('xlsx', 'Create, edit and analyse .xlsx spreadsheets with formulas and charts'),
    doc('docx', 'Create and edit Word documents (.docx) with tracked changes'),
    doc('pptx', 'Build slide decks and presentations'),
    doc('pdf', 'Extract text from PDF files, fill forms, merge and split documents'),
    doc('test-driven-development', 'Write the failing test first, then the code'),
    doc('cargo-fuzz', 'Fuzz Rust crates with cargo-fuzz and libFuzzer'),
    doc('libfuzzer', 'Fuzz C and C++ code with libFuzzer harnesses'),
    doc('changelog-generator', 'Turn git commits into release notes'),
    doc('semgrep', 'Find bugs with Semgrep rules'),
    doc('github-review', 'Review a pull request on GitHub and leave comments'),
  ],
  [
    { slug: 'pdf', text: 'Use pypdf to merge several PDFs into one file.' },
    { slug: 'cargo-fuzz', text: 'Write a fuzz target in fuzz/fuzz_targets and run cargo fuzz run.' },
  ],
);

describe('text', () => {
  it('folds case and accents, and splits on anything but letters and digits', () => {
    expect(fold('Café CRÈME')).toBe('cafe creme');
    expect(tokens('pull-request: PR #12, ok?')).toEqual(['pull', 'request', 'pr', '12', 'ok']);
  });

  it('stems English words to one term and leaves short words and numbers alone', () => {
    expect(stem('merging')).toBe(stem('merge'));
    expect(stem('spreadsheets')).toBe('spreadsheet');
    expect([stem('pdf'), stem('k8s'), stem('e2e')]).toEqual(['pdf', 'k8s', 'e2e']);
    expect(STOP_WORDS.has('the')).toBe(true);
  });

  it('keeps a quality apart from its verb: accessibility is not access, and names one term with accessible', () => {
    expect(stem('accessibility')).toBe(stem('accessible'));
    expect(stem('accessibility')).not.toBe(stem('access'));
    expect(stem('maintainability')).not.toBe(stem('maintain'));
    expect(stem('availability')).toBe(stem('available'));
    // Short words ending so are Porter's as before.
    expect([stem('table'), stem('tables'), stem('enable')]).toEqual(['tabl', 'tabl', 'enabl']);
  });

  it('allows more typos in longer words', () => {
    expect([typosAllowed('pdf'), typosAllowed('fuzz'), typosAllowed('semgrp'), typosAllowed('spreadhseet')]).toEqual([0, 0, 1, 2]);
  });
});

describe('parseQuery', () => {
  it('drops stop words, expands synonyms and phrases, and marks the word being typed', () => {
    const { groups, partial } = parseQuery('make a pull request in excel', true);
    expect(groups.map((g) => g.typed.join(' '))).toEqual(['make', 'pull request', 'excel']);
    expect(groups[1]!.alternatives).toContainEqual(['pr']);
    expect(groups[2]!.alternatives).toEqual(expect.arrayContaining([['excel'], ['xlsx'], ['spreadsheet']]));
    expect(partial).toBe(stem('excel'));
    expect(parseQuery('excel ', true).partial).toBeUndefined();
  });

  it('keeps a query of stop words alone as it is', () => {
    expect(parseQuery('how to').groups.map((g) => g.typed)).toEqual([['how'], ['to']]);
  });
});

describe('search', () => {
  it('finds a word in another form (stemming) and in the SKILL.md text', () => {
    expect(slugs(catalog, 'merging pdf files')[0]).toBe('pdf');
    expect(slugs(catalog, 'fuzz target')).toContain('cargo-fuzz');
  });

  it('finds synonyms and acronyms: excel, powerpoint, word, tdd, pr', () => {
    expect(slugs(catalog, 'excel')[0]).toBe('xlsx');
    expect(slugs(catalog, 'powerpoint')[0]).toBe('pptx');
    expect(slugs(catalog, 'word')[0]).toBe('docx');
    expect(slugs(catalog, 'tdd')[0]).toBe('test-driven-development');
    expect(slugs(catalog, 'review a pr')[0]).toBe('github-review');
  });

  it('tolerates typos in proportion to the word, and says what was meant', () => {
    const answer = search(catalog, 'spreadhseet', { now: NOW });
    expect(answer.hits[0]!.slug).toBe('xlsx');
    expect(answer.didYouMean).toBe('spreadsheet');
    expect(slugs(catalog, 'semgrp')[0]).toBe('semgrep');
    // Three letters allow none.
    expect(slugs(catalog, 'pdx')).toEqual([]);
  });

  it('searches the SKILL.md texts unless told to search the listings alone, as the site does on a keystroke', () => {
    expect(slugs(catalog, 'pypdf')).toEqual(['pdf']);
    expect(slugs(catalog, 'pypdf', { texts: false })).toEqual([]);
    expect(slugs(catalog, 'merging pdf', { texts: false })[0]).toBe('pdf');
  });

  it('matches the start of the word being typed', () => {
    expect(slugs(catalog, 'sprea', { typing: true })[0]).toBe('xlsx');
    expect(slugs(catalog, 'sprea')).toEqual([]);
  });

  it('finds nothing for a query about nothing in the catalog, rather than partial noise', () => {
    expect(search(catalog, 'bake sourdough bread', { now: NOW })).toEqual({ total: 0, hits: [] });
    // One common word of three is not enough.
    expect(slugs(catalog, 'translate medieval poetry code')).toEqual([]);
  });

  it('takes a word the listings spell as it is, rather than as a typo of another', () => {
    const index = indexOf([doc('rust-crates', 'Publish a crate to crates.io'), doc('project-maker', 'Create a new project')]);
    // "crate" is one typo from "create", but it is a word of the catalog: it means a crate.
    expect(slugs(index, 'crate')).toEqual(['rust-crates']);
    // A word the listings lack is still looked for as a typo.
    expect(slugs(index, 'creat project')).toEqual(['project-maker']);
  });

  it('suggests a correction when nothing matches a misspelt query', () => {
    const answer = search(catalog, 'chnagelog genrator', { now: NOW });
    expect(answer.didYouMean).toBe('changelog generator');
  });

  it('ranks a skill that covers the whole query above one that repeats part of it', () => {
    expect(slugs(catalog, 'fuzz c code')[0]).toBe('libfuzzer');
    expect(slugs(catalog, 'fuzz rust')[0]).toBe('cargo-fuzz');
  });

  it('matches two words typed apart against a name that runs them together', () => {
    const index = indexOf([doc('googlecalendar-automation', 'Automate Googlecalendar tasks'), doc('calendar-notes', 'Notes on a calendar')]);
    expect(slugs(index, 'google calendar')[0]).toBe('googlecalendar-automation');
  });

  it('puts the skill the query names first', () => {
    expect(slugs(catalog, 'libfuzzer')[0]).toBe('libfuzzer');
    expect(slugs(catalog, 'cargo fuzz')[0]).toBe('cargo-fuzz');
  });

  it('breaks ties by popularity, then freshness, never by the alphabet', () => {
    const twins = (a: Partial<SearchDocument>, b: Partial<SearchDocument>) =>
      slugs(indexOf([doc('aaa-notes', 'Takes meeting notes', a), doc('zzz-notes', 'Takes meeting notes', b)]), 'meeting notes');
    expect(twins({ installs: 1 }, { installs: 50 })).toEqual(['zzz-notes', 'aaa-notes']);
    expect(twins({ updatedAt: daysAgo(300) }, { updatedAt: daysAgo(1) })).toEqual(['zzz-notes', 'aaa-notes']);
  });

  it('lets popularity reorder close matches but not outrank a much better one', () => {
    const index = indexOf([doc('pdf-forms', 'Fill PDF forms', { installs: 10_000 }), doc('pdf-merge', 'Merge PDF files into one PDF', { installs: 0 })]);
    expect(slugs(index, 'merge pdf')[0]).toBe('pdf-merge');
  });

  it('ranks a deprecated skill below a live one that matches as well', () => {
    const index = indexOf([doc('old-lint', 'Lint shell scripts', { deprecated: 'use shellcheck' }), doc('new-lint', 'Lint shell scripts')]);
    expect(slugs(index, 'lint shell scripts')).toEqual(['new-lint', 'old-lint']);
  });

  it('filters by category and by price, and sorts by installs or by date', () => {
    const index = indexOf([
      doc('a-chart', 'Draw charts', { category: 'data', installs: 5, updatedAt: daysAgo(10) }),
      doc('b-chart', 'Draw charts from spreadsheets', { category: 'data', installs: 50, updatedAt: daysAgo(100), paid: true }),
      doc('c-chart', 'Draw charts', { category: 'design', installs: 1, updatedAt: daysAgo(1) }),
    ]);
    expect(slugs(index, 'charts', { category: 'data' }).sort()).toEqual(['a-chart', 'b-chart']);
    expect(slugs(index, 'charts', { paid: false }).sort()).toEqual(['a-chart', 'c-chart']);
    expect(slugs(index, 'charts', { sort: 'installs' })).toEqual(['b-chart', 'a-chart', 'c-chart']);
    expect(slugs(index, 'charts', { sort: 'newest' })).toEqual(['c-chart', 'a-chart', 'b-chart']);
    // No words: every skill of the filter, most installed first.
    expect(search(index, '', { now: NOW, category: 'data' }).hits.map((h) => h.slug)).toEqual(['b-chart', 'a-chart']);
  });

  it('counts every match and returns at most the limit', () => {
    const many = indexOf(Array.from({ length: 30 }, (_, i) => doc(`notes-${i}`, 'Takes notes')));
    const answer = search(many, 'notes', { now: NOW, limit: 5 });
    expect(answer.total).toBe(30);
    expect(answer.hits).toHaveLength(5);
  });

  it('searches across shards, and takes a skill seen in two (moving between them) once', () => {
    const a = indexOf([doc('alpha-tool', 'Formats tables')]).skills[0]!;
    const b = indexOf([doc('beta-tool', 'Formats tables'), doc('alpha-tool', 'Formats tables')]).skills[0]!;
    const answer = search({ skills: [a, b], text: [], maxInstalls: 0 }, 'formats tables', { now: NOW });
    expect(answer.hits.map((h) => h.slug).sort()).toEqual(['alpha-tool', 'beta-tool']);
  });

  it('does not answer a query about accessibility with access control', () => {
    const index = indexOf([doc('access-control', 'Audit who has access to what'), doc('web-guidelines', 'Check a page for accessibility and design faults')]);
    expect(slugs(index, 'accessibility')).toEqual(['web-guidelines']);
    expect(slugs(index, 'accessible page')).toEqual(['web-guidelines']);
  });

  it('finds a word said another way in the vocabulary table: faster is performance, website is site', () => {
    const index = indexOf([doc('react-performance', 'Performance rules for React apps'), doc('react-forms', 'Forms in React apps')]);
    expect(slugs(index, 'make my react app faster')[0]).toBe('react-performance');
    const sites = indexOf([doc('web-guidelines', 'Check a site against best practices'), doc('guideline-notes', 'Notes on guidelines')]);
    expect(slugs(sites, 'website guidelines')[0]).toBe('web-guidelines');
  });

  it('does not hold a word the catalog has never seen against the skills that match the rest', () => {
    const index = indexOf([doc('weather-api', 'Get the current weather of any city'), doc('city-guide', 'Get a guide to a city')]);
    // "forecast" is in no skill: the query is still mostly about weather.
    expect(slugs(index, 'get a weather forecast')[0]).toBe('weather-api');
    // Mostly unknown words: a query about something else still finds nothing.
    expect(slugs(index, 'weather forecast')).toEqual([]);
    expect(slugs(index, 'hiking weather forecast')).toEqual([]);
  });

  it('lets a word typed alone reach a name that runs it together with another word', () => {
    const index = indexOf([
      doc('weathermap-automation', 'Automate Weathermap tasks'),
      doc('openweather-api', 'Call the Openweather API'),
      doc('map-tools', 'Draw a map, open it again'),
      doc('weatherly-shop', 'Clothes by Weatherly'),
    ]);
    expect(slugs(index, 'weather').sort()).toEqual(['openweather-api', 'weathermap-automation']);
    // "Weatherly" is a word of its own: its rest, "ly", is not a word.
    expect(slugs(index, 'weather')).not.toContain('weatherly-shop');
  });

  it('cuts no result because another scored high: one skill stuffed with the query leaves every honest match listed', () => {
    const honest = [
      doc('xlsx-formulas', 'Write Excel formulas for a spreadsheet'),
      doc('sheet-charts', 'Make charts from spreadsheet data'),
      doc('csv-to-xlsx', 'Convert CSV files into Excel workbooks'),
      doc('budget-sheet', 'Keep a household budget in a spreadsheet'),
      doc('pivot-helper', 'Build pivot tables in Excel'),
      doc('git-helper', 'Commit and push changes'),
    ];
    const words = 'excel xlsx spreadsheet xls spreadsheets';
    const stuffed = doc('excel', Array(40).fill(words).join(' '), { name: 'Excel', category: words, author: 'excel' });
    const index = indexOf([...honest, stuffed], [{ slug: 'excel', text: Array(3000).fill(words).join(' ') }]);
    for (const q of ['excel', 'spreadsheet', 'xlsx']) {
      const found = slugs(index, q);
      expect(found, q).toEqual(expect.arrayContaining(['xlsx-formulas', 'sheet-charts', 'csv-to-xlsx', 'budget-sheet', 'pivot-helper']));
      expect(found, q).not.toContain('git-helper');
    }
  });

  it('caps what repetition earns: saying the query words hundreds of times in every field scores at most twice saying them once', () => {
    const words = 'excel xlsx spreadsheet xls spreadsheets';
    const once = doc('excel-kit', 'Edit Excel spreadsheets', { name: 'Excel Kit' });
    const stuffed = doc('excel-kit', Array(40).fill(words).join(' '), { name: 'Excel Kit', category: words, author: 'excel' });
    const others = [doc('xlsx-formulas', 'Write Excel formulas for a spreadsheet'), doc('pivot-helper', 'Build pivot tables in Excel')];
    const scoreOf = (skill: SearchDocument, text: string) => {
      const answer = search(indexOf([...others, skill], [{ slug: 'excel-kit', text }]), 'excel', { now: NOW });
      return answer.hits.find((h) => h.slug === 'excel-kit')!.score;
    };
    expect(scoreOf(stuffed, Array(3000).fill(words).join(' ')) / scoreOf(once, 'Opens an Excel file.')).toBeLessThanOrEqual(2);
  });

  it('never throws on odd queries', () => {
    for (const q of ['', '   ', '!!!', 'a'.repeat(200), '\u0000', '🙂 emoji', '"quoted" (paren) [bracket]', 'ünïcödé', '-- --']) {
      expect(() => search(catalog, q, { now: NOW, typing: true })).not.toThrow();
    }
  });
});

describe('highlight', () => {
  it('marks the words of a text whose stems the skill matched', () => {
    expect(highlight('Merging PDF files', ['merg', 'pdf'])).toEqual([
      { text: 'Merging', mark: true },
      { text: ' ', mark: false },
      { text: 'PDF', mark: true },
      { text: ' files', mark: false },
    ]);
    expect(highlight('Nothing here', [])).toEqual([{ text: 'Nothing here', mark: false }]);
  });
});

describe('documents', () => {
  it('takes the body of SKILL.md without front matter or link addresses, cut on a word', () => {
    const text = skillText(
      `---\nname: a\ndescription: d\n---\n# Title\nSee [the docs](https://example.com/x) or https://example.com.\n${'word '.repeat(3000)}`,
    );
    expect(text.startsWith('# Title\nSee [the docs] or')).toBe(true);
    expect(text).not.toContain('example.com');
    expect(text.length).toBeLessThanOrEqual(TEXT_CHARS);
    expect(text.endsWith('word')).toBe(true);
  });

  it('ranks by the public installs', () => {
    expect(popularity({ total: 10, last7d: 1, last30d: 3 })).toBe(10);
  });

  it('hashes a slug to the same shard every time', () => {
    expect(shardOf('pdf', 7)).toBe(shardOf('pdf', 7));
    expect(new Set(Array.from({ length: 200 }, (_, i) => shardOf(`skill-${i}`, 4))).size).toBe(4);
  });
});
