// BM25 over a small set of passages held in memory: picks the passages of a few candidate
// articles (and of web pages, which the index never stored) that best answer the query. Words
// are compared after a light plural folding ("elections" = "election"), close to what the
// index's porter stemmer does for the common cases. One regular expression of the query words
// finds them in each passage (native matching instead of tokenizing every word in JavaScript:
// this stage went from ~22 ms to a few ms per search on the news benchmark; a scan of the
// characters walking a trie of the words' forms, with no string per word, was still 1.6-1.9x
// slower than the pattern: bench/passage-scan.bench.ts).

const K1 = 1.2;
const B = 0.75;

/**
 * A subject this long makes V8 compile a pattern to machine code at its first use
 * (JSRegExp::kTierUpForSubjectLengthValue). Run first on shorter subjects (a search's passages are
 * ~450 characters each), a pattern is compiled to bytecode, interpreted once, and compiled again to
 * machine code at its next use: every question has a pattern of its own, so each search paid both
 * compilations. V8 also tunes the machine code to the characters of the subject it is compiled on
 * (its frequency sample, 128 characters from the subject's middle): a blank text of this length
 * made the pattern slower on the passages, so the passages themselves, joined, are that subject.
 */
const TIER_UP_CHARS = 1000;

export function fold(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return word.slice(0, -3) + 'y';
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is'))
    return word.slice(0, -1);
  return word;
}

/** The forms a (folded) term matches: itself, +s, +es, and y -> ies. */
export function termForms(terms: string[]): Set<string> {
  const forms = new Set<string>();
  for (const t of terms) {
    forms
      .add(t)
      .add(t + 's')
      .add(t + 'es');
    if (t.endsWith('y')) forms.add(t.slice(0, -1) + 'ies');
  }
  return forms;
}

/** Matches any form of the (folded) terms as a whole word. */
function termPattern(terms: string[]): RegExp {
  const alternatives = [...termForms(terms)]
    .sort((a, b) => b.length - a.length)
    .map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|');
  // \b is ASCII-only but 4x faster than Unicode lookarounds: used when every word is ASCII.
  if (/^[\x00-\x7f]*$/.test(alternatives)) return new RegExp(`\\b(?:${alternatives})\\b`, 'gi');
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives})(?![\\p{L}\\p{N}])`, 'giu');
}

/**
 * Words of a passage (passages are single-spaced text): counting spaces beats splitting, and
 * indexOf finds them faster than a loop over the characters (whole article paragraphs go through
 * here for fact questions).
 */
function wordCount(p: string): number {
  let n = 1;
  for (let i = p.indexOf(' '); i >= 0; i = p.indexOf(' ', i + 1)) n++;
  return n;
}

/**
 * Scores every passage against the query terms (higher is better; 0 when no term occurs).
 * `lengths`: the passages' lengths in words when known (the index stores them), else counted.
 */
export function scorePassages(
  passages: string[],
  queryTerms: string[],
  lengths: number[] = passages.map(wordCount),
): number[] {
  const n = passages.length;
  const terms = [...new Set(queryTerms.map((t) => fold(t.toLowerCase())))];
  if (!n || !terms.length) return passages.map(() => 0);
  const pattern = termPattern(terms);
  // Compiled to machine code at once, on the first passages (see TIER_UP_CHARS); a match there
  // moves lastIndex, which each passage's scan below resets.
  let sample = '';
  for (let i = 0; i < n && sample.length < TIER_UP_CHARS; i++) sample += `${passages[i]} `;
  if (sample.length >= TIER_UP_CHARS) pattern.test(sample);
  // exec on the one pattern, not matchAll: matchAll clones the pattern and makes an iterator per
  // passage (a third of this loop's time over a search's ~200 passages).
  // Most passages of a search match no term, and the same few spellings match again and again:
  // a passage without a match gets no map, and each spelling is folded once per call.
  const folded = new Map<string, string>();
  const tfs = passages.map((p) => {
    let tf: Map<string, number> | undefined;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(p); m !== null; m = pattern.exec(p)) {
      let t = folded.get(m[0]);
      if (t === undefined) folded.set(m[0], (t = fold(m[0].toLowerCase())));
      tf ??= new Map();
      tf.set(t, (tf.get(t) ?? 0) + 1);
    }
    return tf;
  });
  return bm25Scores(tfs, lengths);
}

/**
 * BM25 of each passage from its term counts (undefined: no term, scores 0) among these passages
 * (the document frequencies), with `lengths` in words.
 */
export function bm25Scores(tfs: (Map<string, number> | undefined)[], lengths: number[]): number[] {
  const n = tfs.length;
  const avgLen = lengths.reduce((s, l) => s + l, 0) / n || 1;
  const df = new Map<string, number>();
  for (const tf of tfs) if (tf) for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  return tfs.map((tf, i) => {
    if (!tf) return 0;
    let score = 0;
    for (const [t, f] of tf) {
      const d = df.get(t)!;
      const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5));
      score += (idf * (f * (K1 + 1))) / (f + K1 * (1 - B + (B * lengths[i]!) / avgLen));
    }
    return score;
  });
}
