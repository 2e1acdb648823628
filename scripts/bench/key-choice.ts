/**
 * Which key each request of a read workload asks for: uniformly at random, or skewed the way
 * registry traffic is (a few popular packages take most reads; Zipf with s = 1). Seeded, so both
 * systems of a comparison get exactly the same sequence.
 */

/** mulberry32: a small seeded PRNG, good enough to pick keys. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function uniformKeys(keys: number, length: number, seed = 1): number[] {
  const random = seededRandom(seed);
  return Array.from({ length }, () => Math.floor(random() * keys));
}

/** Key k (by popularity rank, shuffled onto indices) with probability ∝ 1 / (rank + 1)^s. */
export function zipfKeys(keys: number, length: number, seed = 1, s = 1): number[] {
  const random = seededRandom(seed);
  const cumulative: number[] = [];
  let sum = 0;
  for (let rank = 0; rank < keys; rank++) {
    sum += 1 / (rank + 1) ** s;
    cumulative.push(sum);
  }
  // The most popular key is not simply the first one seeded.
  const byRank = Array.from({ length: keys }, (_, i) => i);
  for (let i = keys - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [byRank[i], byRank[j]] = [byRank[j]!, byRank[i]!];
  }
  return Array.from({ length }, () => {
    const target = random() * sum;
    let lo = 0;
    let hi = keys - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return byRank[lo]!;
  });
}
