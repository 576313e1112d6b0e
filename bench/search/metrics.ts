// Retrieval quality measures over ranked URL lists.

export interface Quality {
  recall10: number;
  success5: number;
  mrr10: number;
  questions: number;
}

export function scoreRun(runs: { ranked: string[]; relevant: string[] }[]): Quality {
  let recall = 0,
    success = 0,
    mrr = 0;
  for (const { ranked, relevant } of runs) {
    const rel = new Set(relevant);
    const top10 = ranked.slice(0, 10);
    recall += top10.filter((u) => rel.has(u)).length / rel.size;
    if (ranked.slice(0, 5).some((u) => rel.has(u))) success++;
    const first = top10.findIndex((u) => rel.has(u));
    if (first >= 0) mrr += 1 / (first + 1);
  }
  const n = runs.length || 1;
  return { recall10: recall / n, success5: success / n, mrr10: mrr / n, questions: runs.length };
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}
