// BM25 over a small set of passages held in memory: used for web pages, which the index never
// stored, to pick each page's passages that best answer the query.
import { tokenize } from './query.ts';

const K1 = 1.2;
const B = 0.75;

/** Scores every passage against the query terms (higher is better; 0 when no term occurs). */
export function scorePassages(passages: string[], terms: string[]): number[] {
  const docs = passages.map((p) => tokenize(p));
  const n = docs.length;
  if (!n || !terms.length) return passages.map(() => 0);
  const avgLen = docs.reduce((s, d) => s + d.length, 0) / n || 1;
  const termSet = new Set(terms);
  const tfs = docs.map((d) => {
    const tf = new Map<string, number>();
    for (const t of d) if (termSet.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
    return tf;
  });
  const df = new Map<string, number>();
  for (const tf of tfs) for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  return tfs.map((tf, i) => {
    let score = 0;
    for (const [t, f] of tf) {
      const idf = Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
      score += idf * (f * (K1 + 1)) / (f + K1 * (1 - B + B * docs[i]!.length / avgLen));
    }
    return score;
  });
}
