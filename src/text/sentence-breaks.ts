// ICU's sentence boundaries (Intl.Segmenter, granularity 'sentence') without ICU, for the text it
// is almost always given: a paragraph of ASCII, Latin letters, curly quotes and dashes. The
// segmenter was a third of splitting an answer's sources into sentences (issue 26.4): each segment
// is an object with its own string, and ICU's iterator is reached through V8's Intl layer.
//
// The rules are Unicode's sentence boundaries (UAX #29, rules SB1-SB11 and SB998), which ICU's
// rules implement (it passes Unicode's SentenceBreakTest). Without paragraph separators, Extend or
// Format characters (whose presence turns this scanner off), a boundary can only follow a run of
// sentence terminators (SATerm Close* Sp*), and it is there unless
//   SB6  ATerm × Numeric                              ("3.5")
//   SB7  (Upper | Lower) ATerm × Upper                ("U.S")
//   SB8  ATerm Close* Sp* × (¬(OLetter | Upper | Lower | ParaSep | SATerm))* Lower
//   SB8a SATerm Close* Sp* × (SContinue | SATerm)
// A character whose Sentence_Break class is not known here (any other script, combining marks,
// format characters, line separators, surrogates) makes sentenceStarts return undefined: the
// caller asks ICU. sentence-breaks.test.ts compares the two on the news corpus and random text.

const OTHER = 0;
const SP = 1;
const LOWER = 2;
const UPPER = 3;
const OLETTER = 4;
const NUMERIC = 5;
const ATERM = 6;
const STERM = 7;
const CLOSE = 8;
const SCONTINUE = 9;
/** A character this scanner does not classify: ICU decides. */
const UNKNOWN = 10;

/** Classes of U+0000..U+017F (ASCII, Latin-1, Latin Extended-A). */
const TABLE = classTable();

function classTable(): Uint8Array {
  const TABLE = new Uint8Array(0x180).fill(UNKNOWN);
  for (let c = 0x20; c < 0x7f; c++) TABLE[c] = OTHER;
  TABLE[0x09] = SP;
  TABLE[0x0b] = SP;
  TABLE[0x0c] = SP;
  TABLE[0x20] = SP;
  TABLE[0xa0] = SP;
  for (let c = 0x30; c <= 0x39; c++) TABLE[c] = NUMERIC;
  for (let c = 0x41; c <= 0x5a; c++) TABLE[c] = UPPER;
  for (let c = 0x61; c <= 0x7a; c++) TABLE[c] = LOWER;
  TABLE[0x2e] = ATERM;
  TABLE[0x21] = STERM;
  TABLE[0x3f] = STERM;
  // Open, close and quotation punctuation.
  for (const c of '"\'()[]{}') TABLE[c.charCodeAt(0)] = CLOSE;
  for (const c of ',-:;') TABLE[c.charCodeAt(0)] = SCONTINUE;
  // Latin-1 and Latin Extended-A letters are upper or lower case (ª and º, U+00AA and U+00BA,
  // are Lowercase too); × and ÷ are symbols; « » are quotation marks.
  for (let c = 0xc0; c < 0x180; c++) {
    const ch = String.fromCharCode(c);
    TABLE[c] = /\p{Lowercase}/u.test(ch) ? LOWER : /\p{Uppercase}/u.test(ch) ? UPPER : OTHER;
  }
  TABLE[0xaa] = LOWER;
  TABLE[0xba] = LOWER;
  TABLE[0xab] = CLOSE;
  TABLE[0xbb] = CLOSE;
  // Symbols of Latin-1: currency, ©, ®, °, ±, ¶, §, µ is a letter (Lower), ¿ ¡ are punctuation.
  for (const c of '¢£¤¥¦§¨©¬®¯°±´¶·¸¿¡') TABLE[c.charCodeAt(0)] = OTHER;
  TABLE[0xb5] = LOWER;
  return TABLE;
}

/** Classes of the characters met beyond U+017F in news text. */
const BEYOND = new Map<number, number>([
  [0x2018, CLOSE], // ‘
  [0x2019, CLOSE], // ’
  [0x201c, CLOSE], // “
  [0x201d, CLOSE], // ”
  [0x2013, SCONTINUE], // –
  [0x2014, SCONTINUE], // —
  [0x2010, OTHER], // ‐
  [0x2012, OTHER], // ‒
  [0x2015, OTHER], // ―
  [0x2022, OTHER], // •
  [0x2026, OTHER], // …
  [0x2212, OTHER], // −
  [0x20ac, OTHER], // €
  [0x2122, OTHER], // ™
  [0x25b6, OTHER], // ▶
  [0x25ba, OTHER], // ►
  [0x25cf, OTHER], // ●
  [0x25fe, OTHER], // ◾
  [0x27a4, OTHER], // ➤
]);

function classOf(c: number): number {
  return c < 0x180 ? TABLE[c]! : (BEYOND.get(c) ?? UNKNOWN);
}

const isLetter = (k: number) => k === LOWER || k === UPPER || k === OLETTER;
const isTerm = (k: number) => k === ATERM || k === STERM;

/**
 * Where each of ICU's sentence segments of `p` starts (the first is 0), in order; undefined when `p`
 * holds a character this scanner does not classify. An empty string has no segment.
 */
export function sentenceStarts(p: string): number[] | undefined {
  const n = p.length;
  const starts: number[] = [];
  if (n === 0) return starts;
  starts.push(0);
  let i = 0;
  while (i < n) {
    const k = classOf(p.charCodeAt(i));
    if (k === UNKNOWN) return undefined;
    if (!isTerm(k)) {
      i++;
      continue;
    }
    // SATerm Close* Sp*
    let j = i + 1;
    let c = UNKNOWN;
    while (j < n && (c = classOf(p.charCodeAt(j))) === CLOSE) j++;
    while (j < n && (c = classOf(p.charCodeAt(j))) === SP) j++;
    if (j >= n) break;
    if (c === UNKNOWN) return undefined;
    let joined = c === SCONTINUE || isTerm(c); // SB8a
    if (!joined && k === ATERM) {
      const next = classOf(p.charCodeAt(i + 1));
      // SB6
      if (next === NUMERIC) joined = true;
      else if (next === UPPER && i > 0) {
        const before = classOf(p.charCodeAt(i - 1));
        joined = before === UPPER || before === LOWER; // SB7
      }
      if (!joined) {
        // SB8: anything but a letter or a terminator, then a lower-case letter. The run ends at
        // a letter or a terminator, where the next terminator's own run starts: linear.
        let m = j;
        let d = c;
        while (!isLetter(d) && !isTerm(d)) {
          if (d === UNKNOWN) return undefined;
          if (++m >= n) break;
          d = classOf(p.charCodeAt(m));
        }
        joined = m < n && d === LOWER;
      }
    }
    if (!joined) starts.push(j);
    i = j;
  }
  return starts;
}
