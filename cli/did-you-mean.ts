/**
 * "Did you mean": the names closest to one that is unknown, by edit distance (insertions,
 * deletions, substitutions and swaps of neighbours), allowing about one edit per three letters,
 * and a name that starts with what was typed. Pure.
 */
export function closest(word: string, names: Iterable<string>, max = 3): string[] {
  const allowed = Math.max(1, Math.floor(word.length / 3));
  const scored: [string, number][] = [];
  for (const name of names) {
    const distance = name.startsWith(word) && word.length >= 3 ? 0.5 : editDistance(word, name);
    if (distance <= allowed) scored.push([name, distance]);
  }
  return scored
    .sort(([a, x], [b, y]) => x - y || (a < b ? -1 : 1))
    .slice(0, max)
    .map(([name]) => name);
}

/** Optimal string alignment distance: Levenshtein with transpositions of adjacent characters. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 8) return Number.POSITIVE_INFINITY;
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The hint for an unknown name, or undefined when nothing is close. */
export function didYouMean(word: string, names: Iterable<string>): string | undefined {
  const found = closest(word, names);
  return found.length === 0 ? undefined : `did you mean ${found.map((name) => JSON.stringify(name)).join(', ')}?`;
}
