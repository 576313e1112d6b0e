// Near-duplicate detection between sentences: Jaccard similarity of word shingles. News wires
// repeat the same sentence across outlets with tiny edits; quoting both adds nothing.
import { words } from './terms.ts';

export function shingles(text: string, size = 3): Set<string> {
  return shinglesOfWords(words(text), size);
}

/** shingles() of a text whose words() are at hand. */
export function shinglesOfWords(w: readonly string[], size = 3): Set<string> {
  const out = new Set<string>();
  if (w.length < size) {
    if (w.length) out.add(w.join(' '));
    return out;
  }
  for (let i = 0; i + size <= w.length; i++) out.add(w.slice(i, i + size).join(' '));
  return out;
}

export function jaccard<T>(a: Set<T>, b: Set<T>): number {
  if (!a.size || !b.size) return 0;
  let inter = 0;
  const [small, large] = a.size < b.size ? [a, b] : [b, a];
  for (const x of small) if (large.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}
