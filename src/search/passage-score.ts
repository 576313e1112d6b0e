// BM25 over a small set of passages held in memory: picks the passages of a few candidate
// articles (and of web pages, which the index never stored) that best answer the query. Words
// are compared after a light plural folding ("elections" = "election"), close to what the
// index's porter stemmer does for the common cases.
import { tokenize } from './query.ts';

function fold(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return word.slice(0, -3) + 'y';
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) return word.slice(0, -1);
  return word;
}

const K1 = 1.2;
const B = 0.75;

/** Scores every passage against the query terms (higher is better; 0 when no term occurs). */
export function scorePassages(passages: string[], terms: string[]): number[] {
  const docs = passages.map((p) => tokenize(p).map(fold));
  terms = terms.map(fold);
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
