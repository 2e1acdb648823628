import type { SearchResult as EngineResult, Query } from 'minisearch';
import type { SearchDocument, SearchSort } from './documents.ts';
import { type SkillsIndex, storedDocument, type TextIndex } from './index-files.ts';
import { SYNONYM_GROUPS } from './synonyms.ts';
import { STOP_WORDS, stem, tokens } from './text.ts';

/**
 * Searching the index: one function for the site (every keystroke), the API and the CLI.
 *
 * A query is read as groups of alternatives: each word, or a phrase of the synonym table, is a
 * group, and its synonyms are alternatives of it ("excel" → excel | xlsx | spreadsheet). Every
 * alternative is searched in the listings and the `SKILL.md` texts with BM25 (field boosts:
 * name above slug above description above category and author above the text), with typo
 * tolerance that grows with the word's length and, for the word being typed, prefix matching.
 *
 * A skill's relevance is that score, saturated (a typical match earns half of what any match
 * can, so repetition earns at most twice that), times the share of the query it covers (each
 * group weighed by how rare it is, fuzzy matches counting less), squared: a skill that matches
 * every rare word beats one that matches a common word many times. Below half the query, a skill
 * is not a match at all: a query about nothing in the catalog finds nothing rather than noise;
 * above it, no match is dropped for scoring low beside another. Relevance is then blended with
 * popularity (installs) and freshness; ties never fall back to the alphabet.
 */

export interface SearchOptions {
  category?: string;
  /** Only paid (true) or only free (false) skills. */
  paid?: boolean;
  sort?: SearchSort;
  limit?: number;
  /** The query is being typed: its last word may be the start of a word. */
  typing?: boolean;
  /**
   * Whether to search the `SKILL.md` texts too (the default). The listings answer most queries,
   * and the texts are most of the index: the site searches the listings alone on each keystroke,
   * and everything once typing pauses.
   */
  texts?: boolean;
  /** "Now", for freshness; defaults to the clock. */
  now?: number;
}

export interface SearchHit extends SearchDocument {
  /** Relevance blended with popularity and freshness (0 for a query with no words). */
  score: number;
  /** The index terms (stems) the skill matched, for highlighting. */
  terms: string[];
}

export interface SearchAnswer {
  /** Matches in all (before `limit`). */
  total: number;
  hits: SearchHit[];
  /** A corrected query that finds skills, when some word of this one looks misspelt. */
  didYouMean?: string;
  /** The hits are those of `didYouMean`: the query as typed found nothing. */
  corrected?: boolean;
}

/** The loaded parts of the index: the head's skills index first, then whichever shards have arrived. */
export interface LoadedSearchIndex {
  skills: SkillsIndex[];
  text: TextIndex[];
  maxInstalls: number;
}

const BOOST: Record<string, number> = { name: 5, slug: 4, description: 2, category: 1.5, author: 1.5 };
/** The body's weight against the listing's: it is long, and says what a skill does less sharply. */
const TEXT_WEIGHT = 0.35;
/** How much a match only in the body counts towards covering a query word. */
const TEXT_COVERAGE = 0.8;
/** How much a fuzzy (typo) match counts towards covering a query word. */
const FUZZY_COVERAGE = 0.6;
/** Below this share of the query (weighed by rarity), a skill is not a match. */
const MIN_COVERAGE = 0.5;
/**
 * What a skill's match earns saturates, as a term's frequency does in BM25: a match scoring the
 * query's typical match (the median of those that cover enough of it) earns half of the most
 * any match can, and no amount of repetition (a word said hundreds of times, in every field,
 * with all its synonyms) earns more than twice that. The median is the reference because one
 * stuffed skill, or a few, cannot move it.
 */
const SATURATION = 1;
/** The query spells a skill's name or slug. */
const EXACT_NAME_BONUS = 3;
/** The most installed skill's relevance is multiplied by 1 + this; one nobody installed by 1. */
const POPULARITY_WEIGHT = 0.5;
const FRESHNESS_WEIGHT = 0.15;
const FRESHNESS_DAYS = 90;
const DEPRECATED_FACTOR = 0.5;
const DAY_MS = 86_400_000;

/** Typos allowed in a word: none up to 4 letters, one up to 8, two beyond. */
export function typosAllowed(word: string): number {
  return word.length <= 4 ? 0 : word.length <= 8 ? 1 : 2;
}

/** The word being typed is searched as a prefix from this many letters on (one letter would match most of the index). */
const PREFIX_FROM = 3;

interface Group {
  /** Each alternative is the stems of a word or phrase; the first is what was typed. */
  alternatives: string[][];
  /** Names that run the typed word together with another word ("weathermap" for "weather"), searched in names and slugs only. */
  compounds?: string[];
  /** The words as typed, for "did you mean". */
  typed: string[];
}

interface ParsedQuery {
  groups: Group[];
  /** The stem of the word being typed, searched as a prefix too. */
  partial?: string;
  /** Typed words' stems that the listings have as they are (or, for the word being typed, start): not looked for as typos. */
  spelt?: Set<string>;
}

/** Synonym phrases by their first word, longest first. */
const PHRASES: Map<string, { words: string[]; group: readonly string[] }[]> = (() => {
  const byFirst = new Map<string, { words: string[]; group: readonly string[] }[]>();
  for (const group of SYNONYM_GROUPS) {
    for (const phrase of group) {
      const words = tokens(phrase);
      const list = byFirst.get(words[0]!) ?? [];
      list.push({ words, group });
      byFirst.set(words[0]!, list);
    }
  }
  for (const list of byFirst.values()) list.sort((a, b) => b.words.length - a.words.length);
  return byFirst;
})();

const phraseStems = (phrase: string): string[] => {
  const words = tokens(phrase);
  const kept = words.filter((w) => !STOP_WORDS.has(w));
  return [...new Set((kept.length > 0 ? kept : words).map(stem))];
};

/** Reads a query into groups of alternatives (see the module's comment). */
export function parseQuery(query: string, typing = false): ParsedQuery {
  const words = tokens(query);
  const meaningful = words.filter((w) => !STOP_WORDS.has(w));
  // A query of stop words alone ("how to") is searched as it is.
  const keepStopWords = meaningful.length === 0;
  const groups: Group[] = [];
  for (let i = 0; i < words.length; ) {
    const phrase = PHRASES.get(words[i]!)?.find(({ words: p }) => p.every((w, k) => words[i + k] === w));
    if (phrase) {
      const typed = words.slice(i, i + phrase.words.length);
      const alternatives = [phraseStems(typed.join(' ')), ...phrase.group.map(phraseStems)];
      groups.push({ alternatives: unique(alternatives), typed });
      i += phrase.words.length;
      continue;
    }
    const word = words[i]!;
    i++;
    if (STOP_WORDS.has(word) && !keepStopWords) continue;
    groups.push({ alternatives: [[stem(word)]], typed: [word] });
  }
  // Names run words together ("googlecalendar", "weathermap", "webapp"): two words typed side by
  // side also match as one, which covers both.
  for (let g = 0; g + 1 < groups.length; g++) {
    const [a, b] = [groups[g]!, groups[g + 1]!];
    if (a.typed.length !== 1 || b.typed.length !== 1) continue;
    const joined = [stem(a.typed[0]! + b.typed[0]!)];
    a.alternatives.push(joined);
    b.alternatives.push(joined);
  }
  const last = words.at(-1);
  const endsInWord = typing && last !== undefined && /[\p{L}\p{N}]$/u.test(query);
  const partial = endsInWord && groups.length > 0 && groups.at(-1)!.typed.at(-1) === last ? stem(last) : undefined;
  return { groups, ...(partial === undefined ? {} : { partial }) };
}

/** The fields a compound is looked for in: names run words together, sentences do not. */
const COMPOUND_FIELDS = ['name', 'slug'] as const;
/** The shortest word that reaches into a compound, and the shortest other part of one. */
const COMPOUND_WORD = 4;
const COMPOUND_PART = 3;
/** At most this many compounds per word, the commonest first. */
const COMPOUND_LIMIT = 8;

/**
 * Reads the query's words against the catalog's vocabulary: which are spelt as the listings spell
 * them, and the compounds each word typed alone reaches.
 *
 * A word typed alone reaches the names that run it together with another word: "weather"
 * finds "Weathermap" and "Openweather", "calendar" finds "Googlecalendar". A name word is such a
 * compound when it starts or ends with the typed word and the rest is itself a word the catalog
 * uses (so "weather" does not reach "weathered", nor "port" "portable"). Only names and slugs are
 * searched for them: a description says "open weather" in two words.
 */
function readAgainstCatalog(parsed: ParsedQuery, index: LoadedSearchIndex): void {
  // Words short enough to allow no typo, and to reach into no compound, need nothing here.
  const long = parsed.groups.filter((group) => group.typed.some((word) => word.length >= COMPOUND_WORD));
  if (long.length === 0) return;
  const vocabulary = vocabularyOf(index);
  // A word the listings have is taken as it is spelt: looking for typos of it would only find
  // other words (and that search is most of a keystroke's time at 10,000 skills).
  parsed.spelt = new Set();
  const last = parsed.groups.at(-1)?.typed.at(-1);
  for (const group of long) {
    group.typed.forEach((word, k) => {
      const term = group.alternatives[0]![k];
      if (term === undefined) return;
      if (vocabulary.stems.has(term) || (term === parsed.partial && word === last && startsSomeWord(vocabulary, word))) parsed.spelt!.add(term);
    });
  }
  const candidates = long.filter((group) => group.typed.length === 1 && !STOP_WORDS.has(group.typed[0]!));
  for (const group of candidates) {
    const word = group.typed[0]!;
    const found: string[] = [];
    const isPart = (rest: string) => rest.length >= COMPOUND_PART && vocabulary.uses.has(rest);
    for (const name of wordsStartingWith(vocabulary.names, word)) if (isPart(name.slice(word.length))) found.push(name);
    const reversed = [...word].reverse().join('');
    for (const eman of wordsStartingWith(vocabulary.reversedNames, reversed)) {
      const name = [...eman].reverse().join('');
      if (isPart(name.slice(0, name.length - word.length))) found.push(name);
    }
    if (found.length === 0) continue;
    found.sort((a, b) => (vocabulary.uses.get(b) ?? 0) - (vocabulary.uses.get(a) ?? 0) || (a < b ? -1 : 1));
    group.compounds = [...new Set(found.slice(0, COMPOUND_LIMIT).map(stem))];
  }
}

function unique(alternatives: string[][]): string[][] {
  const seen = new Set<string>();
  return alternatives.filter((a) => a.length > 0 && !seen.has(a.join(' ')) && seen.add(a.join(' ')));
}

/**
 * The engine's query for the parsed groups: every alternative, OR-ed. Typos, the start of the word
 * being typed and compounds are looked for in the listings only (`listings`): the bodies'
 * vocabulary is many times larger, and expanding a word over it costs more than a keystroke may
 * (a three-letter start matches hundreds of words there). In the texts, a word is found once it
 * is whole.
 */
function engineQuery({ groups, partial, spelt }: ParsedQuery, listings: boolean): Query {
  const queries: Query[] = [];
  for (const group of groups) {
    // Typos allowed by the length of the word as typed, not of its stem ("harness" stems to "har").
    const allowed = new Map(group.alternatives[0]!.map((term, k) => [term, typosAllowed(group.typed[k] ?? term)]));
    for (const [a, alternative] of group.alternatives.entries()) {
      // What was typed may be misspelt; the synonym table's words are not.
      const fuzzy = listings && a === 0 ? (term: string) => (spelt?.has(term) ? 0 : (allowed.get(term) ?? typosAllowed(term))) : false;
      const prefix = listings ? (term: string) => term === partial && term.length >= PREFIX_FROM : false;
      if (alternative.length === 1) queries.push({ queries: [alternative[0]!], fuzzy, prefix, combineWith: 'OR' });
      else queries.push({ queries: alternative, fuzzy, prefix, combineWith: 'AND' });
    }
    if (listings && group.compounds?.length) queries.push({ queries: group.compounds, fields: [...COMPOUND_FIELDS], combineWith: 'OR' });
  }
  return { combineWith: 'OR', queries };
}

const RAW = { tokenize: (text: string) => [text], processTerm: (term: string) => term };

/** A listing as the index stores it (its slug is its id). */
type Listing = Omit<SearchDocument, 'slug'>;

interface Candidate {
  slug: string;
  doc: Listing;
  listing: number;
  text: number;
  /** For each group, how well it is covered (1 exact, less for typos or text-only matches). */
  cover: number[];
  terms: Set<string>;
}

/** Searches what is loaded of the index; see the module's comment for how skills are ranked. */
export function search(index: LoadedSearchIndex, query: string, options: SearchOptions = {}): SearchAnswer {
  const parsed = parseQuery(query, options.typing);
  const limit = options.limit ?? 20;
  if (parsed.groups.length === 0) return browse(index, options, limit);
  readAgainstCatalog(parsed, index);
  const candidates = match(index, parsed, options);
  const filtered = rank(index, parsed, candidates, query, options);
  const answer: SearchAnswer = { total: filtered.length, hits: filtered.slice(0, limit).map(hitOf) };
  const corrected = filtered.length === 0 || usedTypos(parsed, candidates) ? correction(index, parsed) : undefined;
  if (corrected && corrected !== query.trim().toLowerCase()) {
    const fixed = parseQuery(corrected);
    readAgainstCatalog(fixed, index);
    const found = rank(index, fixed, match(index, fixed, options), corrected, options);
    if (found.length > 0) answer.didYouMean = corrected;
    // Nothing for what was typed, something for what was meant: show that, and say so.
    if (found.length > 0 && filtered.length === 0)
      return { total: found.length, hits: found.slice(0, limit).map(hitOf), didYouMean: corrected, corrected: true };
  }
  return answer;
}

/** Every skill (filtered), for a query with no words: most installed first, or as sorted. */
function browse(index: LoadedSearchIndex, options: SearchOptions, limit: number): SearchAnswer {
  const all: Scored[] = [];
  const seen = new Set<string>();
  for (const shard of index.skills) {
    for (const doc of allDocuments(shard)) {
      if (seen.has(doc.slug)) continue;
      seen.add(doc.slug);
      if (passes(doc, options)) all.push({ slug: doc.slug, doc, score: 0, terms: new Set() });
    }
  }
  all.sort(order(options.sort === 'newest' ? 'newest' : 'installs'));
  return { total: all.length, hits: all.slice(0, limit).map(hitOf) };
}

/** A skill ranked for a query; made a {@link SearchHit} only if it is among those returned. */
interface Scored {
  slug: string;
  doc: Listing;
  score: number;
  terms: Set<string>;
}

const hitOf = ({ slug, doc, score, terms }: Scored): SearchHit => ({ ...doc, slug, score, terms: [...terms] });

const documentCache = new WeakMap<SkillsIndex, SearchDocument[]>();
function allDocuments(shard: SkillsIndex): SearchDocument[] {
  let docs = documentCache.get(shard);
  if (!docs) {
    docs = Object.values(shard.toJSON().documentIds).map((slug) => storedDocument(shard, slug as string)!);
    documentCache.set(shard, docs);
  }
  return docs;
}

function passes(hit: Listing, options: SearchOptions): boolean {
  if (options.category !== undefined && hit.category !== options.category) return false;
  if (options.paid !== undefined && hit.paid !== options.paid) return false;
  return true;
}

/** How well one engine result covers each group: 1 for an exact term (or the typed prefix), less for a typo. */
function coverOf(parsed: ParsedQuery, result: EngineResult): number[] {
  // Run for every result of every keystroke: plain loops over lists a few terms long, no sets or closures.
  const { terms, queryTerms } = result;
  const cover: number[] = [];
  for (const group of parsed.groups) {
    let best = 0;
    if (group.compounds && containsAny(terms, group.compounds)) best = 1;
    for (let a = 0; best < 1 && a < group.alternatives.length; a++) {
      const alternative = group.alternatives[a]!;
      if (containsAll(terms, alternative)) best = 1;
      else if (containsAll(queryTerms, alternative)) {
        // The typed prefix matched the start of a word: as good as exact while typing.
        const { partial } = parsed;
        const prefixOnly = partial !== undefined && alternative.length === 1 && alternative[0] === partial && startsAny(terms, partial);
        best = Math.max(best, prefixOnly ? 1 : FUZZY_COVERAGE);
      }
    }
    cover.push(best);
  }
  return cover;
}

function containsAll(list: readonly string[], wanted: readonly string[]): boolean {
  for (const term of wanted) if (!list.includes(term)) return false;
  return true;
}

function containsAny(list: readonly string[], wanted: readonly string[]): boolean {
  for (const term of wanted) if (list.includes(term)) return true;
  return false;
}

function startsAny(list: readonly string[], prefix: string): boolean {
  for (const term of list) if (term.startsWith(prefix)) return true;
  return false;
}

function match(index: LoadedSearchIndex, parsed: ParsedQuery, options: SearchOptions): Map<string, Candidate> {
  const query = engineQuery(parsed, true);
  const textQuery = engineQuery(parsed, false);
  const candidates = new Map<string, Candidate>();
  // The index's own stored listing, not a copy: a keystroke may look at thousands.
  const listingOf = (slug: string) => {
    for (const shard of index.skills) {
      const doc = shard.getStoredFields(slug) as Listing | undefined;
      if (doc) return doc;
    }
    return undefined;
  };
  for (const shard of index.skills) {
    for (const result of shard.search(query, { ...RAW, boost: BOOST })) {
      const slug = result.id as string;
      if (candidates.has(slug)) continue; // a skill moving between shards may be in two for a while
      const doc = shard.getStoredFields(slug) as Listing;
      candidates.set(slug, { slug, doc, listing: result.score, text: 0, cover: coverOf(parsed, result), terms: new Set(result.terms) });
    }
  }
  for (const shard of options.texts === false ? [] : index.text) {
    for (const result of shard.search(textQuery, RAW)) {
      const slug = result.id as string;
      let candidate = candidates.get(slug);
      if (!candidate) {
        const doc = listingOf(slug);
        if (!doc) continue;
        candidate = { slug, doc, listing: 0, text: 0, cover: parsed.groups.map(() => 0), terms: new Set() };
        candidates.set(slug, candidate);
      }
      candidate.text = Math.max(candidate.text, result.score);
      const cover = coverOf(parsed, result);
      for (let g = 0; g < cover.length; g++) candidate.cover[g] = Math.max(candidate.cover[g]!, cover[g]! * TEXT_COVERAGE);
    }
  }
  return candidates;
}

/** The skills that match, ranked and filtered by the options. */
function rank(index: LoadedSearchIndex, parsed: ParsedQuery, candidates: Map<string, Candidate>, query: string, options: SearchOptions): Scored[] {
  // A group is weighed by how rare it is among the skills (inverse document frequency).
  const documents = index.skills.reduce((n, shard) => n + shard.documentCount, 0) || 1;
  const matching = parsed.groups.map(() => 0);
  for (const candidate of candidates.values()) for (let g = 0; g < matching.length; g++) if (candidate.cover[g]! > 0) matching[g]!++;
  // A word no skill has (not even as a typo or in a text) cannot tell skills apart, and should not
  // count against the ones that match the rest; but a query most of whose words the catalog has
  // never seen is about something else, and its few known words would only find noise.
  const unknown = matching.filter((df) => df === 0).length;
  const ignoreUnknown = unknown * 2 < parsed.groups.length;
  const weights = matching.map((df) => (df === 0 && ignoreUnknown ? 0 : Math.log(1 + documents / (df + 1))));
  const totalWeight = weights.reduce((a, b) => a + b, 0) || 1;
  const spelled = tokens(query).join('-');
  const now = options.now ?? Date.now();
  const popularityScale = Math.log1p(Math.max(1, index.maxInstalls));
  const matches: { candidate: Candidate; coverage: number; raw: number }[] = [];
  for (const candidate of candidates.values()) {
    let covered = 0;
    for (let g = 0; g < weights.length; g++) covered += candidate.cover[g]! * weights[g]!;
    const coverage = covered / totalWeight;
    if (coverage >= MIN_COVERAGE) matches.push({ candidate, coverage, raw: candidate.listing + TEXT_WEIGHT * candidate.text });
  }
  const typical = SATURATION * lowerMedian(matches.map((m) => m.raw));
  const hits: Scored[] = [];
  for (const { candidate, coverage, raw } of matches) {
    const { slug, doc } = candidate;
    let relevance = (raw / (raw + typical || 1)) * coverage * coverage;
    if (slug === spelled || spelledName(doc) === spelled) relevance *= EXACT_NAME_BONUS;
    const popular = Math.log1p(doc.installs) / popularityScale;
    const ageDays = Math.max(0, (now - timeOf(doc)) / DAY_MS);
    const fresh = Number.isFinite(ageDays) ? Math.exp(-ageDays / FRESHNESS_DAYS) : 0;
    let score = relevance * (1 + POPULARITY_WEIGHT * popular) * (1 + FRESHNESS_WEIGHT * fresh);
    if (doc.deprecated !== undefined) score *= DEPRECATED_FACTOR;
    if (passes(doc, options)) hits.push({ slug, doc, score, terms: candidate.terms });
  }
  // No match is cut for scoring low beside another: how much of the query a skill covers decides
  // whether it is a match, never what the best match scored.
  return hits.sort(order(options.sort ?? 'relevance'));
}

/** The lower median of `values` (0 for none). */
function lowerMedian(values: number[]): number {
  if (values.length === 0) return 0;
  values.sort((a, b) => a - b);
  return values[Math.floor((values.length - 1) / 2)]!;
}

/** A value of a stored listing, worked out once: the index keeps the same object for a listing. */
function perListing<T>(of: (doc: Listing) => T): (doc: Listing) => T {
  const cache = new WeakMap<Listing, T>();
  return (doc) => {
    if (!cache.has(doc)) cache.set(doc, of(doc));
    return cache.get(doc)!;
  };
}
/** The listing's name spelt as a slug, to tell a query that names it. */
const spelledName = perListing((doc) => tokens(doc.name).join('-'));
const timeOf = perListing((doc) => Date.parse(doc.updatedAt));

/** Orders hits; whatever the order, ties go to the more installed, then the newer skill. */
function order(sort: SearchSort): (a: Scored, b: Scored) => number {
  const installs = (a: Scored, b: Scored) => b.doc.installs - a.doc.installs;
  const newest = (a: Scored, b: Scored) => timeOf(b.doc) - timeOf(a.doc);
  const relevance = (a: Scored, b: Scored) => b.score - a.score;
  const bySlug = (a: Scored, b: Scored) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0);
  const chain = sort === 'installs' ? [installs, relevance, newest] : sort === 'newest' ? [newest, relevance, installs] : [relevance, installs, newest];
  return (a, b) => {
    for (const compare of chain) {
      const c = compare(a, b);
      if (c !== 0) return c;
    }
    return bySlug(a, b); // only to make the order deterministic: nothing above told them apart
  };
}

/** Whether some typed word was found only through a typo. */
function usedTypos(parsed: ParsedQuery, candidates: Map<string, Candidate>): boolean {
  return parsed.groups.some((_, g) => {
    let exact = false;
    for (const c of candidates.values()) if (c.cover[g]! >= TEXT_COVERAGE) exact = true;
    return !exact && parsed.groups[g]!.alternatives[0]![0] !== parsed.partial;
  });
}

/** The query with each word that is not in the catalog's vocabulary replaced by the nearest word that is. */
function correction(index: LoadedSearchIndex, parsed: ParsedQuery): string | undefined {
  const vocabulary = vocabularyOf(index);
  let changed = false;
  const last = parsed.groups.at(-1)?.typed.at(-1);
  const words = parsed.groups.flatMap((group) =>
    group.typed.map((word) => {
      if (vocabulary.uses.has(word) || typosAllowed(word) === 0) return word;
      // The word being typed is not a typo while it is the start of a known word.
      if (parsed.partial !== undefined && word === last && startsSomeWord(vocabulary, word)) return word;
      const near = nearest(word, vocabulary);
      if (near) changed = true;
      return near ?? word;
    }),
  );
  return changed ? words.join(' ') : undefined;
}

/** Words of the listings and the synonym table, with how many skills use each, sorted; made once per set of shards. */
interface Vocabulary {
  uses: Map<string, number>;
  sorted: string[];
  /** The words of names and slugs, sorted, and each spelt backwards, sorted: where compounds are looked for. */
  names: string[];
  reversedNames: string[];
  /** The stems of the listings' words: the terms the skills index has. */
  stems: Set<string>;
  /** The nearest word found for each misspelt word so far (null: none near enough): the search is over every word. */
  corrections: Map<string, string | null>;
}

const vocabularies = new WeakMap<readonly SkillsIndex[], Vocabulary>();

function vocabularyOf(index: LoadedSearchIndex): Vocabulary {
  let vocabulary = vocabularies.get(index.skills);
  if (vocabulary) return vocabulary;
  const uses = new Map<string, number>();
  const names = new Set<string>();
  const add = (word: string) => uses.set(word, (uses.get(word) ?? 0) + 1);
  for (const group of SYNONYM_GROUPS) for (const phrase of group) for (const word of tokens(phrase)) add(word);
  for (const shard of index.skills) {
    for (const doc of allDocuments(shard)) {
      for (const word of new Set(tokens(`${doc.name} ${doc.slug} ${doc.description} ${doc.category} ${doc.author}`))) if (!STOP_WORDS.has(word)) add(word);
      for (const word of tokens(`${doc.name} ${doc.slug}`)) if (word.length >= COMPOUND_WORD + COMPOUND_PART) names.add(word);
    }
  }
  vocabulary = {
    uses,
    sorted: [...uses.keys()].sort(),
    names: [...names].sort(),
    reversedNames: [...names].map((word) => [...word].reverse().join('')).sort(),
    stems: new Set([...uses.keys()].map(stem)),
    corrections: new Map(),
  };
  vocabularies.set(index.skills, vocabulary);
  return vocabulary;
}

/** Whether some vocabulary word starts with `prefix`. */
function startsSomeWord({ sorted }: Vocabulary, prefix: string): boolean {
  return sorted[firstAtOrAfter(sorted, prefix)]?.startsWith(prefix) ?? false;
}

/** The words of a sorted list that start with `prefix` and are longer than it. */
function* wordsStartingWith(sorted: readonly string[], prefix: string): Generator<string> {
  for (let i = firstAtOrAfter(sorted, prefix); i < sorted.length && sorted[i]!.startsWith(prefix); i++) if (sorted[i] !== prefix) yield sorted[i]!;
}

/** Where `word` is or would be in a sorted list (a binary search). */
function firstAtOrAfter(sorted: readonly string[], word: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < word) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The vocabulary word closest to `word` within its typo allowance; ties go to the commoner word. */
function nearest(word: string, vocabulary: Vocabulary): string | undefined {
  const known = vocabulary.corrections.get(word);
  if (known !== undefined) return known ?? undefined;
  // Typing passes through many non-words; keep the last few thousand.
  if (vocabulary.corrections.size > 5_000) vocabulary.corrections.clear();
  const found = nearestOf(word, vocabulary.uses);
  vocabulary.corrections.set(word, found ?? null);
  return found;
}

function nearestOf(word: string, uses: Map<string, number>): string | undefined {
  const allowed = typosAllowed(word);
  let best: { word: string; distance: number; uses: number } | undefined;
  for (const [candidate, count] of uses) {
    if (Math.abs(candidate.length - word.length) > allowed) continue;
    const distance = editDistance(word, candidate, allowed);
    if (distance > allowed) continue;
    if (!best || distance < best.distance || (distance === best.distance && count > best.uses)) best = { word: candidate, distance, uses: count };
  }
  return best?.word;
}

/** Edit distance with adjacent swaps counting one (Damerau–Levenshtein), or `max + 1` once it must exceed `max`. */
function editDistance(a: string, b: string, max: number): number {
  let previous2: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let smallest = i;
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, previous2[j - 2]! + 1);
      row.push(d);
      smallest = Math.min(smallest, d);
    }
    if (smallest > max) return max + 1;
    previous2 = previous;
    previous = row;
  }
  return previous[b.length]!;
}
