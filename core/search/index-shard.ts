import MiniSearch, { type AsPlainObject, type Options } from 'minisearch';
import { insertionPoint } from '../sorted-json-list.ts';

/**
 * One file of the search index as the rebuild holds it between writes: the documents of a
 * serialised MiniSearch index (core/search/index-files.ts), kept so that a write re-serialises
 * only what its skills change.
 *
 * MiniSearch itself can patch an index (discard, add), but not its serialised form: `toJSON`
 * walks every term and posting, and putting that in a canonical order cost more again (about
 * 0.4 s of CPU for the 885 real skills' files, on every write, on the thread the next write's
 * files wait behind). Here each term's entry and each document's entries are kept as JSON text:
 * a write makes again the entries of the terms its skills use and joins the rest as they were.
 *
 * Documents keep their numbers: a new one takes the next, a removed one leaves a gap, so a write
 * never renumbers the others (which would change every entry). A file laid out anew
 * ({@link IndexShard.of}) numbers its documents in slug order, so its bytes depend only on the
 * skills it holds. What each document contributes (terms, field lengths, stored fields) is
 * MiniSearch's own analysis of it, so a loaded file searches exactly as MiniSearch would.
 */

/** A document of either kind of file: a listing or a `SKILL.md` text, by slug. */
type Document = { slug: string };

interface Entry {
  id: number;
  /** Unique terms per field, by field id, as MiniSearch counts them (its BM25 length). */
  fieldLength: (number | null)[];
  /** Each term the document has, with its frequency per field id. */
  terms: Map<string, Record<string, number>>;
  stored?: Record<string, unknown>;
  /** This document's parts of `documentIds`, `fieldLength` and `storedFields`, as JSON. */
  json: { id: string; length: string; stored?: string };
}

export class IndexShard<T extends Document> {
  private readonly bySlug = new Map<string, Entry>();
  /** The same entries by number, in ascending order (numbers are only ever appended). */
  private readonly byId = new Map<number, Entry>();
  /** Each term's postings, in blocks of documents by number, and its entry of `index` as JSON. */
  private readonly postings = new Map<string, Postings>();
  /** The terms in code-unit order, as the file lists them. */
  private sortedTerms: string[] = [];
  private nextId = 0;
  /** Sums of the documents' field lengths, by field id, for the averages BM25 reads. */
  private readonly lengthSums: number[];
  private readonly fieldIds: Record<string, number>;

  private constructor(private readonly options: Options<T>) {
    this.fieldIds = Object.fromEntries(options.fields.map((field, n) => [field, n]));
    this.lengthSums = options.fields.map(() => 0);
  }

  /** A file laid out anew for `documents`, numbered in slug order. */
  static of<T extends Document>(options: Options<T>, documents: readonly T[] = []): IndexShard<T> {
    const shard = new IndexShard(options);
    for (const doc of [...documents].sort((a, b) => compare(a.slug, b.slug))) shard.set(doc);
    return shard;
  }

  /** The shard a file holds (its `index`), numbers kept; throws on a file that is not one. */
  static load<T extends Document>(options: Options<T>, plain: AsPlainObject): IndexShard<T> {
    const shard = new IndexShard(options);
    const ids = Object.entries(plain.documentIds).map(([id, slug]) => [Number(id), slug as string] as const);
    ids.sort(([a], [b]) => a - b);
    for (const [id, slug] of ids) {
      const stored = plain.storedFields[id] as Record<string, unknown> | undefined;
      shard.insert(slug, {
        id,
        fieldLength: plain.fieldLength[id] as (number | null)[],
        terms: new Map(),
        ...(stored ? { stored } : {}),
        json: { id: '', length: '' },
      });
    }
    for (const [term, fields] of plain.index) {
      for (const [fieldId, postings] of Object.entries(fields)) {
        for (const [id, frequency] of Object.entries(postings as Record<string, number>)) {
          const entry = shard.byId.get(Number(id));
          if (!entry) continue; // a posting of a discarded document: MiniSearch drops it too
          const frequencies = entry.terms.get(term) ?? {};
          frequencies[fieldId] = frequency;
          entry.terms.set(term, frequencies);
        }
      }
    }
    for (const entry of shard.byId.values()) shard.post(entry);
    shard.nextId = Math.max(plain.nextId, (ids.at(-1)?.[0] ?? -1) + 1);
    return shard;
  }

  get documentCount(): number {
    return this.bySlug.size;
  }

  has(slug: string): boolean {
    return this.bySlug.has(slug);
  }

  /** The stored fields of `slug` (what a result shows), as MiniSearch keeps them. */
  stored(slug: string): Record<string, unknown> | undefined {
    return this.bySlug.get(slug)?.stored;
  }

  /** The slugs held, in no particular order. */
  slugs(): string[] {
    return [...this.bySlug.keys()];
  }

  /** Adds `doc`, or replaces the document of its slug, which keeps its number. */
  set(doc: T): void {
    const known = this.bySlug.get(doc.slug);
    if (known) this.unpost(known);
    const entry = { id: known?.id ?? this.nextId++, ...analyse(this.options, doc), json: { id: '', length: '' } };
    this.insert(doc.slug, entry);
    this.post(entry);
  }

  /** Removes the document of `slug`, if held. */
  remove(slug: string): void {
    const entry = this.bySlug.get(slug);
    if (!entry) return;
    this.unpost(entry);
    this.bySlug.delete(slug);
    this.byId.delete(entry.id);
  }

  /**
   * The shard as MiniSearch's serialised form (`AsPlainObject`), as JSON text: documents by
   * number, terms in code-unit order, the average field lengths from the documents held.
   */
  json(): string {
    const entries = [...this.byId.values()];
    const count = entries.length;
    const averages = this.lengthSums.map((sum) => (count === 0 ? 0 : sum / count));
    const terms = this.sortedTerms.map((term) => {
      const postings = this.postings.get(term)!;
      postings.json ??= this.termEntry(term, postings);
      return postings.json;
    });
    return [
      `{"documentCount":${count},"nextId":${this.nextId}`,
      `,"documentIds":{${entries.map((e) => e.json.id).join(',')}}`,
      `,"fieldIds":${JSON.stringify(this.fieldIds)}`,
      `,"fieldLength":{${entries.map((e) => e.json.length).join(',')}}`,
      `,"averageFieldLength":${JSON.stringify(averages)}`,
      `,"storedFields":{${entries.flatMap((e) => (e.json.stored === undefined ? [] : [e.json.stored])).join(',')}}`,
      `,"dirtCount":0,"index":[${terms.join(',')}],"serializationVersion":2}`,
    ].join('');
  }

  /**
   * Files the entry under its slug and number. Numbers only grow, so a new one appended keeps
   * `byId` in order; a replaced one keeps its place (Map.set on a key it has).
   */
  private insert(slug: string, entry: Entry): void {
    entry.json = {
      id: `"${entry.id}":${JSON.stringify(slug)}`,
      length: `"${entry.id}":${JSON.stringify(entry.fieldLength)}`,
      ...(entry.stored ? { stored: `"${entry.id}":${JSON.stringify(entry.stored)}` } : {}),
    };
    this.bySlug.set(slug, entry);
    this.byId.set(entry.id, entry);
  }

  private post(entry: Entry): void {
    entry.fieldLength.forEach((length, field) => {
      this.lengthSums[field]! += length ?? 0;
    });
    const block = blockOf(entry.id);
    for (const term of entry.terms.keys()) {
      let postings = this.postings.get(term);
      if (!postings) {
        postings = { blocks: new Map(), size: 0 };
        this.postings.set(term, postings);
        this.sortedTerms.splice(insertionPoint(this.sortedTerms, term), 0, term);
      }
      const ids = postings.blocks.get(block) ?? { ids: new Set<number>() };
      ids.ids.add(entry.id);
      ids.json = undefined;
      postings.blocks.set(block, ids);
      postings.size += 1;
      postings.json = undefined;
    }
  }

  private unpost(entry: Entry): void {
    entry.fieldLength.forEach((length, field) => {
      this.lengthSums[field]! -= length ?? 0;
    });
    const block = blockOf(entry.id);
    for (const term of entry.terms.keys()) {
      const postings = this.postings.get(term)!;
      const ids = postings.blocks.get(block)!;
      ids.ids.delete(entry.id);
      ids.json = undefined;
      if (ids.ids.size === 0) postings.blocks.delete(block);
      postings.size -= 1;
      postings.json = undefined;
      if (postings.size > 0) continue;
      this.postings.delete(term);
      this.sortedTerms.splice(insertionPoint(this.sortedTerms, term), 1);
    }
  }

  /**
   * A term's entry of `index`, `[term, {fieldId: {documentNumber: frequency}}]`, fields and
   * documents in ascending order (as JSON.stringify orders integer-like keys). Each block's part
   * is kept, so a write makes again only the block of the document it changed: a common term's
   * entry costs a join of its blocks, not a pass over every document that has it.
   */
  private termEntry(term: string, postings: Postings): string {
    const byField = new Map<string, string[]>();
    for (const block of [...postings.blocks.keys()].sort((a, b) => a - b)) {
      const ids = postings.blocks.get(block)!;
      ids.json ??= this.blockJson(term, ids.ids);
      for (const [fieldId, json] of Object.entries(ids.json)) {
        const parts = byField.get(fieldId) ?? [];
        parts.push(json);
        byField.set(fieldId, parts);
      }
    }
    const fields = [...byField].sort(([a], [b]) => Number(a) - Number(b)).map(([fieldId, parts]) => `"${fieldId}":{${parts.join(',')}}`);
    return `[${JSON.stringify(term)},{${fields.join(',')}}]`;
  }

  /** One block's postings of a term, by field id: `"documentNumber":frequency,…`. */
  private blockJson(term: string, ids: Set<number>): Record<string, string> {
    const byField: Record<string, string[]> = {};
    for (const id of [...ids].sort((a, b) => a - b)) {
      for (const [fieldId, frequency] of Object.entries(this.byId.get(id)!.terms.get(term)!)) {
        byField[fieldId] ??= [];
        byField[fieldId].push(`"${id}":${frequency}`);
      }
    }
    return Object.fromEntries(Object.entries(byField).map(([fieldId, parts]) => [fieldId, parts.join(',')]));
  }
}

/** A term's postings: the documents that have it, in blocks of {@link BLOCK} numbers, each block's JSON kept until it changes. */
interface Postings {
  blocks: Map<number, { ids: Set<number>; json?: Record<string, string> }>;
  size: number;
  json?: string;
}

/** Documents per block of a term's postings: what a write re-serialises of each term it touches. */
const BLOCK = 64;
const blockOf = (id: number) => Math.floor(id / BLOCK);

/** What MiniSearch makes of one document: an index of it alone, read back. */
function analyse<T extends Document>(options: Options<T>, doc: T): Pick<Entry, 'fieldLength' | 'terms' | 'stored'> {
  const single = new MiniSearch(options);
  single.add(doc);
  const plain = single.toJSON();
  const terms = new Map<string, Record<string, number>>();
  for (const [term, fields] of plain.index) {
    const frequencies: Record<string, number> = {};
    for (const [fieldId, postings] of Object.entries(fields)) frequencies[fieldId] = (postings as Record<string, number>)[0]!;
    terms.set(term, frequencies);
  }
  const stored = plain.storedFields[0] as Record<string, unknown> | undefined;
  return { fieldLength: plain.fieldLength[0] as (number | null)[], terms, ...(stored ? { stored } : {}) };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
