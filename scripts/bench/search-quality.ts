/**
 * Ranking quality against graded judgements (scripts/bench/search-queries.json): nDCG@10,
 * recall@10 (of at most ten relevant skills, so a query with thirty can still score 1), MRR, and
 * whether a query with an answer found nothing.
 */
export interface JudgedQuery {
  q: string;
  kind: 'name' | 'task' | 'synonym' | 'typo' | 'none';
  /** Slug → 2 (what the query wants) or 1 (also useful). */
  relevant: Record<string, 1 | 2>;
}

export interface QueryScore {
  query: JudgedQuery;
  results: string[];
  total: number;
  ndcg: number;
  recall: number;
  reciprocalRank: number;
}

const K = 10;

export function scoreQuery(query: JudgedQuery, results: readonly string[], total: number): QueryScore {
  const top = results.slice(0, K);
  const gain = (slug: string) => query.relevant[slug] ?? 0;
  const dcg = top.reduce((sum, slug, i) => sum + (2 ** gain(slug) - 1) / Math.log2(i + 2), 0);
  const ideal = Object.values(query.relevant)
    .sort((a, b) => b - a)
    .slice(0, K)
    .reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0);
  const relevant = Object.keys(query.relevant);
  const found = top.filter((slug) => gain(slug) > 0).length;
  const first = top.findIndex((slug) => gain(slug) > 0);
  return {
    query,
    results: [...results],
    total,
    ndcg: ideal === 0 ? 0 : dcg / ideal,
    recall: relevant.length === 0 ? 0 : found / Math.min(K, relevant.length),
    reciprocalRank: first < 0 ? 0 : 1 / (first + 1),
  };
}

export const mean = (values: readonly number[]) => (values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length);
