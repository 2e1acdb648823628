import { latinReading } from './confusables.ts';

/**
 * The imitation check for new skills (docs/agent-skills.md): a new slug that reads like another
 * author's popular skill (`pdf-too1s` for `pdf-tools`), or a display name that reads the same as
 * its name (`PDF Tools`, or `PDF Тools` with a Cyrillic `Т`), is refused with the slug it imitates.
 *
 * Both slugs are reduced to a lookalike *skeleton* (after Unicode TS #39's skeletons): hyphens
 * dropped, then letters that pass for others folded. Two slugs are lookalikes when their
 * skeletons are equal, or, when both skeletons have at least {@link ONE_EDIT_MIN_LENGTH}
 * characters, one edit (insert, delete or replace one character) apart.
 *
 * Folds, and why only these: `0→o`, `1→l` and `rn→m` are exactly the confusables TS #39 lists
 * among the characters a slug may hold. `vv→w` is added for the same reason as `rn→m` (two narrow
 * letters set close read as one wide letter, as in "vvikipedia"), and the pair almost never occurs
 * in real words, so the fold costs no honest name. Left out: `cl→d` (the pair is common, so
 * `clone` would imitate `done`), and `5→s`, `3→e` (spelling, not lookalike glyphs: they would
 * fold honest names such as `s3-sync` or `html5`, and one such swap is one edit anyway).
 *
 * Why the length floor: among short names one edit is usually another word (`docs` and `docx`,
 * `deno` and `demo`, `json` and `jsonl`), and a quarter of a four-letter name is not a typo.
 * From five characters on a single changed letter mostly leaves the original recognisable,
 * which is what an imitation relies on. Short slugs are still caught by skeleton equality
 * (`0ps` for `ops`).
 */

/** Skills with fewer installs are not worth imitating, and their names stay free to resemble. */
export const IMITATION_MIN_INSTALLS = 100;
/** Skeletons shorter than this match only when equal (see above). */
export const ONE_EDIT_MIN_LENGTH = 5;

export interface ImitationCandidate {
  slug: string;
  /** Its display name. */
  name: string;
  /** Who owns the skill; an author may name skills after their own. */
  author: string;
  installs: number;
}

/** The lookalike skeleton of a slug: hyphens dropped, then `0→o`, `1→l`, `rn→m`, `vv→w`. */
export function lookalikeSkeleton(slug: string): string {
  return slug.replace(/-/g, '').replace(/0/g, 'o').replace(/1/g, 'l').replace(/rn/g, 'm').replace(/vv/g, 'w');
}

/** Whether two slugs read alike by the rule above (symmetric). */
export function isLookalike(a: string, b: string): boolean {
  const x = lookalikeSkeleton(a);
  const y = lookalikeSkeleton(b);
  if (x === y) return true;
  return Math.min(x.length, y.length) >= ONE_EDIT_MIN_LENGTH && withinOneEdit(x, y);
}

/** Name skeletons shorter than this never match: two-letter names are everybody's. */
export const NAME_MIN_LENGTH = 3;

/**
 * The lookalike skeleton of a display name, after Unicode TS #39's skeletons but ignoring case:
 * the name as read in Latin letters (core/confusables.ts: compatibility forms unified, marks
 * dropped, every letter of any script that passes for a Latin one folded to it, lower case),
 * spaces and punctuation ignored, then the slug's folds (`0→o`, `1→l`, `rn→m`, `vv→w`).
 * `PDF Tools`, `pdf-tools`, `PDF Тools` (Cyrillic), `ᴘDF Tools` (a small capital) and
 * `ＰＤＦ Tools` all give `pdftools`.
 */
export function nameSkeleton(name: string): string {
  return lookalikeSkeleton(latinReading(name).replace(/[^a-z0-9]/g, ''));
}

/** What a new skill imitates, and by what: its slug, or its display name. */
export interface Imitation {
  similarTo: string;
  by: 'slug' | 'name';
}

/**
 * The imitation check: the most-installed skill of another author, with at least
 * {@link IMITATION_MIN_INSTALLS} installs, whose slug `newSlug` reads like, or whose display name
 * `newName` reads the same as (equal {@link nameSkeleton}s; ties go to the first slug in
 * alphabetical order, so the answer never depends on the candidates' order); undefined when there
 * is none. Candidates may be a superset, e.g. everything {@link imitationKeys} found.
 */
export function imitatedSkill(newSlug: string, newName: string, newAuthor: string, candidates: readonly ImitationCandidate[]): Imitation | undefined {
  const name = nameSkeleton(newName);
  let best: { candidate: ImitationCandidate; by: Imitation['by'] } | undefined;
  for (const candidate of candidates) {
    if (candidate.author === newAuthor || candidate.installs < IMITATION_MIN_INSTALLS) continue;
    const by = isLookalike(newSlug, candidate.slug) ? 'slug' : name.length >= NAME_MIN_LENGTH && name === nameSkeleton(candidate.name) ? 'name' : undefined;
    if (!by) continue;
    const { installs, slug } = candidate;
    if (!best || installs > best.candidate.installs || (installs === best.candidate.installs && slug < best.candidate.slug)) best = { candidate, by };
  }
  return best && { similarTo: best.candidate.slug, by: best.by };
}

/**
 * Index keys that let a store find the candidates without scanning every skill. Any two
 * lookalike slugs share at least one key: equal skeletons share the skeleton itself; for one edit
 * apart, deleting the inserted character from the longer skeleton gives the shorter one, and
 * deleting the replaced character from both gives the same string. So the keys are the skeleton
 * and, when it is long enough for the one-edit rule, each skeleton with one character deleted: at
 * most 65 keys for a 64-character slug, usually fewer (deleting either of a double letter gives
 * the same key).
 *
 * How the store uses them: when a skill reaches {@link IMITATION_MIN_INSTALLS} installs, write an
 * index entry under each of its keys naming the skill (installs only grow, so entries are only
 * added). At a new skill's publish, read the entries under the new slug's keys (one batch read,
 * as there are at most 65), load those skills' authors and installs, and pass them to
 * {@link similarPopularSlug}, which drops the keys' false matches.
 */
export function lookalikeKeys(slug: string): string[] {
  const skeleton = lookalikeSkeleton(slug);
  const keys = new Set([skeleton]);
  if (skeleton.length >= ONE_EDIT_MIN_LENGTH) {
    for (let i = 0; i < skeleton.length; i++) keys.add(skeleton.slice(0, i) + skeleton.slice(i + 1));
  }
  return [...keys].sort();
}

/**
 * Every index key of a skill: its slug's {@link lookalikeKeys}, and its display name's skeleton
 * (as `name:<skeleton>`, apart from the slugs' keys), when long enough to be matched.
 */
export function imitationKeys(slug: string, name: string): string[] {
  const skeleton = nameSkeleton(name);
  return skeleton.length >= NAME_MIN_LENGTH ? [...lookalikeKeys(slug), `name:${skeleton}`] : lookalikeKeys(slug);
}

/** Levenshtein distance ≤ 1, in one pass. */
function withinOneEdit(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (long.length - short.length > 1) return false;
  let i = 0;
  while (i < short.length && short[i] === long[i]) i++;
  // Past the first difference the rest must match: shifted by one for an insertion, aligned for
  // a replacement.
  return short.length === long.length ? short.slice(i + 1) === long.slice(i + 1) : short.slice(i) === long.slice(i + 1);
}
