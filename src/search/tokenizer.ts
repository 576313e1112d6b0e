// Index terms in JavaScript for the postings index: the same terms SQLite FTS5 made with
// `tokenize = 'porter unicode61 remove_diacritics 2'`, so BM25 computed over our postings sees
// the documents FTS5 saw. Runs on every indexed article and every query, hence the care below.
//
// Rules (checked against FTS5 itself in tokenizer.test.ts):
// - A token is a maximal run of letters, numbers and private-use characters (unicode61's default
//   categories "L* N* Co"); everything else separates, so "don't" -> "don", "t" and "3.5" -> "3", "5".
// - Lowercased. Diacritics are removed from Latin letters only ("Zürich" -> "zurich", "Tiếng" ->
//   "tieng"); FTS5 keeps them elsewhere ("йод", "ά" stay) and splits at the remaining combining
//   marks (Devanagari vowel signs, Arabic harakat), as we do. Letters without a decomposition
//   stay ("ø", "ł", "ß", "œ"); compatibility forms are not folded ("½", "ﬁ" stay as FTS5 has them).
// - Porter stemming of every token of 3 to 64 characters, digits and non-ASCII letters included
//   ("1990s" -> "1990"), as FTS5's porter tokenizer does.
// Known differences (news corpus: 99.9998% of terms agree, BENCHMARKS.md ## Search): FTS5's
// Unicode tables predate recent emoji, so it keeps e.g. "🏼" as a token where we see a separator
// (26 of 5,386 articles); its porter counts non-ASCII letters in UTF-8 bytes ("straße" -> "straß",
// we keep "straße").
//
// Hot path: one native regex match over the lowercased text ([a-z0-9]+ when the text has no
// non-ASCII letters; measured 1.07-1.18x faster than a charCodeAt loop), then a memo lookup per
// token of 3+ characters. Unicode classes are precompiled to BMP ranges (the /u mode was 4x slower).
//
// Stemmer: `stemmer` 2.0.1 (wooorm; Porter 1980 with Porter's own C-version departures, like
// FTS5). Measured on the news corpus (8.62M tokens, FTS5's own tokens as input): agrees with FTS5's
// stem on all but 1 token ("sayyed"); `porter-stemmer` 0.9.1 and `@stdlib/nlp-porter-stemmer`
// agree just as well but are an old unmaintained wrapper / pull in many @stdlib packages;
// `wink-porter2-stemmer` (Porter2) agrees on only 92.7% of 1.96M tokens ("was" -> "was", FTS5 "wa"). The stemmer's
// own speed hardly matters: stems are memoized (83k distinct words in 3,000 news articles).
import { stemmer } from 'stemmer';
import { STOPWORDS } from '../text/stopwords.ts';

/**
 * Letters joined by "&" ("Q&A", "R&D", "AT&T", "M&A", "B&B", "S&P"), one to three on each side: one
 * word to a reader, but the index splits it at "&" (as FTS5's unicode61 does) into letters that
 * are stop words or too short to mean anything alone ("q", "a"). The index keeps those tokens: a
 * compound term in the index would leave every existing index without it until a rebuild (which
 * only a migration can ask for). A query keeps such a word whole (../search/query.ts): the index
 * is read by its parts (compoundStems), and passages and answer sentences match the whole word.
 */
export const AMPERSAND_WORD = /(?<![\p{L}\p{N}&])\p{L}{1,3}&\p{L}{1,3}(?![\p{L}\p{N}&])/u;

/**
 * The index terms a query word is looked up by: its stemmed tokens; for a word joined by "&", its
 * parts that are no stop word ("q" for "q&a"; all of them when every part is one: "at", "t").
 */
export function queryWordStems(word: string): string[] {
  const tokens = wordTokens(word);
  if (tokens.length > 1 && word.includes('&')) {
    const telling = tokens.filter((t) => !STOPWORDS.has(t));
    if (telling.length) return telling.map(stem);
  }
  return tokens.map(stem);
}

/** Stems remembered at most; the memo is cleared when full (3,000 news articles hold 83k distinct words). */
export const STEM_CACHE_LIMIT = 200_000;

// FTS5's porter tokenizer leaves tokens shorter than 3 or longer than 64 (bytes) unstemmed.
const MIN_STEMMED_LENGTH = 3;
const MAX_STEMMED_LENGTH = 64;

// Memo: lowercased word token -> index term (diacritics folded, stemmed).
const terms = new Map<string, string>();

/** The stemmed form of one already-lowercased word token (memoized); Latin diacritics are folded too. */
export function stem(word: string): string {
  let term = terms.get(word);
  if (term === undefined) {
    const folded = LATIN_WITH_DIACRITICS.test(word) ? foldLatinDiacritics(word) : word;
    term = folded.length < MIN_STEMMED_LENGTH || folded.length > MAX_STEMMED_LENGTH ? folded : stemmer(folded);
    if (terms.size >= STEM_CACHE_LIMIT) terms.clear();
    terms.set(word, term);
  }
  return term;
}

/** How many stems are memoized now (for tests of the bound). */
export function stemCacheSize(): number {
  return terms.size;
}

// The Unicode property classes below run in the slow /u mode; for BMP text the same classes are
// compiled once (a few ms at load) into plain ranges. Astral text (emoji, rare CJK) keeps /u.
const WORD = /[\p{L}\p{N}\p{Co}]/u;
const MARK = /\p{M}/u;
const BMP_WORD_OR_MARK = bmpClass((c) => WORD.test(c) || MARK.test(c), 0x80);
const BMP_MARK = bmpClass((c) => MARK.test(c), 0x80);
const BMP_TOKEN = new RegExp(`${bmpClass((c) => WORD.test(c), 0).source}+`, 'g');
const SURROGATE = /[\ud800-\udfff]/;
const COMBINING_MARK = /\p{M}/u;
const ASCII_TOKEN = /[a-z0-9]+/g;
const UNICODE_TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;

/** A non-/u character class of the BMP characters from `first` on that pass `test`. */
function bmpClass(test: (char: string) => boolean, first: number): RegExp {
  const hex = (c: number) => `\\u${c.toString(16).padStart(4, '0')}`;
  let ranges = '';
  let start = -1;
  for (let c = first; c <= 0xd800; c++) {
    const inClass = c < 0xd800 && test(String.fromCharCode(c));
    if (inClass && start < 0) start = c;
    else if (!inClass && start >= 0) {
      ranges += `${hex(start)}-${hex(c - 1)}`;
      start = -1;
    }
  }
  for (let c = 0xe000; c <= 0x10000; c++) {
    const inClass = c < 0x10000 && test(String.fromCharCode(c));
    if (inClass && start < 0) start = c;
    else if (!inClass && start >= 0) {
      ranges += `${hex(start)}-${hex(c - 1)}`;
      start = -1;
    }
  }
  return new RegExp(`[${ranges}]`);
}

// Latin-1 Supplement to Latin Extended-B, and Latin Extended Additional (Vietnamese): the letters
// that may carry a diacritic FTS5 removes. Other scripts keep theirs, as in FTS5.
const LATIN_WITH_DIACRITICS = /[\u00c0-\u024f\u1e00-\u1eff]/;
const MARKS_ON_LATIN = /(?<=[a-z])\p{M}+/gu;

// Decompose, drop the marks on Latin letters, recompose what is left ("й" stays one letter).
function foldLatinDiacritics(text: string): string {
  return text.normalize('NFD').replace(MARKS_ON_LATIN, '').normalize('NFC');
}

/** Lowercased word tokens of a text, in order, unstemmed (stem() folds Latin diacritics). */
export function wordTokens(text: string): string[] {
  const lower = text.toLowerCase();
  // Most English news has no non-ASCII letters, only curly quotes, dashes and bullets.
  if (!BMP_WORD_OR_MARK.test(lower) && !SURROGATE.test(lower)) return lower.match(ASCII_TOKEN) ?? [];
  // Decomposed input (a letter followed by combining marks) is folded as a whole so that the marks
  // on Latin letters do not split words; precomposed text is folded per distinct token, in stem().
  if (SURROGATE.test(lower)) {
    const folded = COMBINING_MARK.test(lower) ? foldLatinDiacritics(lower) : lower;
    return folded.match(UNICODE_TOKEN) ?? [];
  }
  const folded = BMP_MARK.test(lower) ? foldLatinDiacritics(lower) : lower;
  return folded.match(BMP_TOKEN) ?? [];
}

// Words of one or two ASCII characters are their own term: skipping the memo for them (a fifth of
// news tokens: "a", "of", "to" ...) saves a Map lookup each.
function changedByStem(word: string): boolean {
  return word.length >= MIN_STEMMED_LENGTH || word.charCodeAt(0) > 0x7f || word.charCodeAt(word.length - 1) > 0x7f;
}

/** Index terms of a text, in order, stemmed (duplicates kept: callers count term frequencies). */
export function indexTerms(text: string): string[] {
  const terms = wordTokens(text);
  for (let i = 0; i < terms.length; i++) {
    const word = terms[i]!;
    if (changedByStem(word)) terms[i] = stem(word);
  }
  return terms;
}

/** Term frequencies of a text: stemmed term -> count; and the token count (document length). */
export function termFrequencies(text: string): { tf: Map<string, number>; length: number } {
  const words = wordTokens(text);
  const tf = new Map<string, number>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const term = changedByStem(word) ? stem(word) : word;
    tf.set(term, (tf.get(term) ?? 0) + 1);
  }
  return { tf, length: words.length };
}
