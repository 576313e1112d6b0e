// The one sentence splitter of the codebase: the search index cuts passages at its boundaries
// (../search/passages.ts) and the answer engines quote its sentences (../answer).
//
// The platform's Unicode segmenter (Intl.Segmenter, ICU rules; ships with Node, no dependency;
// its boundaries are found without it for the text ./sentence-breaks.ts can classify) plus the repairs it needs on news text: ICU without its suppression data breaks after every
// abbreviation ("U.S.", "Feb.", "p.m.", "Calif."), and misses a boundary before a quote or a number
// ("… he said. '1917' won …"). Measured on 68,318 paragraphs of ../shared/corpus/news against the
// maintained segmenters (src/answer/README.md has the table): sbd cuts after abbreviations about as
// rarely but starts 3x more sentences in lower case and misses boundaries; sentence-splitter,
// wink-nlp and compromise cut far more often or miss far more (and cost 14-190x the time).
import { hasInvisible, isDebris, isDebrisInProse, stripChrome } from './debris.ts';
import { isWhiteSpace } from './white-space.ts';
import { sentenceStarts } from './sentence-breaks.ts';

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** Where ICU's segments start (a paragraph ./sentence-breaks.ts cannot read on its own). */
export function icuStarts(paragraph: string): number[] {
  const out: number[] = [];
  for (const { index } of segmenter.segment(paragraph)) out.push(index);
  return out;
}

/**
 * Boundaries ICU misses when a sentence is followed by a quote or a number ("… he said. '1917'
 * wins …"): a full stop after a lower-case word of three or more letters (so not "Dr." or "U.S.")
 * followed by a capital, digit or opening quote.
 */
const MISSED_BOUNDARY = /(?<=\b\p{Ll}{3,}[.!?]["”’]?)\s+(?=["“‘']?[\p{Lu}\d])/u;

/** Abbreviations ICU breaks after: initials and initialisms ("U.S.", "John F. Kennedy"), titles, months, states. */
const ABBREVIATION_END =
  /(?:^|[\s(“"])(?:(?:\p{Lu}\.){1,3}|(?:Mr|Mrs|Ms|Dr|St|Ste|Sen|Sens|Rep|Reps|Gov|Gen|Lt|Col|Capt|Cmdr|Sgt|Cpl|Pvt|Adm|Maj|Supt|Det|Insp|Jr|Sr|Inc|Corp|Co|Ltd|Bros|No|Nos|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|vs|Mt|Ft|Prof|Rev|Hon|Pres|Ave|Blvd|Rd|Hwy|Dept|Univ|Ala|Ariz|Ark|Calif|Colo|Conn|Del|Fla|Ga|Ill|Ind|Kan|Ky|La|Md|Mass|Mich|Minn|Miss|Mo|Mont|Neb|Nev|Okla|Ore|Pa|Tenn|Tex|Va|Vt|Wash|Wis|Wyo)\.)\s*$/u;
/** …unless the next piece opens like a sentence ("… Apple Inc. The company …"). */
const SENTENCE_OPENING =
  /^\s*["“‘]?(The|A|An|It|He|She|They|We|I|You|But|And|In|On|At|As|This|That|These|Those|There|His|Her|Their|Its|Our|What|When|Why|How|Now|Still|Meanwhile|However)\s/;

/** Lower-case abbreviations ("p.m.", "e.g.", "etc."): a sentence ends there only if a capitalized word that is not a time zone follows. */
const LOWER_ABBREVIATION_END = /(?:^|[\s(])(?:a\.m|p\.m|e\.g|i\.e|etc|approx|cf|al)\.\s*$/;
const TIME_ZONE_START = /^\s*["“]?(ET|EST|EDT|CT|CST|CDT|MT|MST|MDT|PT|PST|PDT|GMT|BST|CET|UTC|local time)\b/;
/** After "a.m."/"p.m.", a weekday, or a zone's name, goes on with the time: "at 8 a.m. Tuesday and will close …". */
const TIME_GOES_ON = /^\s*(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b|^\s*(?:Eastern|Pacific|Central|Mountain)\b/;

/** Whether ICU's segment `next` continues the sentence `previous` (exported for the tests). */
export function continues(previous: string, next: string): boolean {
  if (ABBREVIATION_END.test(previous)) return !SENTENCE_OPENING.test(next);
  if (LOWER_ABBREVIATION_END.test(previous))
    return (
      TIME_ZONE_START.test(next) ||
      /^\s*[\p{Ll}\d(,;]/u.test(next) ||
      (/[ap]\.m\.\s*$/.test(previous) && TIME_GOES_ON.test(next))
    );
  // ICU also breaks before a lower-case continuation after "?" or "!" in a quote ("…?" asked X).
  return /^\s*\p{Ll}/u.test(next) && /[?!]["”’]?\s*$/.test(previous);
}

/**
 * Characters before a text's trailing white space that continues' end-anchored patterns read: an
 * abbreviation is 9 code units at most ("𝐀.𝐁.𝐂."), with one character before it.
 */
const TAIL = 16;

/**
 * What continues() needs of the merged text paragraph[start, end): its last TAIL characters before
 * its trailing white space, or the whole text when it is that short. A pattern's "^" can match at
 * a cut tail's start only with an abbreviation TAIL characters long: none is.
 */
function tailOf(paragraph: string, start: number, end: number): string {
  let e = end;
  while (e > start && isWhiteSpace(paragraph.charCodeAt(e - 1))) e--;
  return paragraph.slice(Math.max(start, e - TAIL), end);
}

/** Sentences of one paragraph, trimmed, nothing dropped. */
export function segmentSentences(paragraph: string): string[] {
  const spans = segmentSpans(paragraph);
  const out: string[] = [];
  for (let i = 0; i < spans.length; i += 2) out.push(paragraph.slice(spans[i], spans[i + 1]));
  return out;
}

/** ICU's boundaries, split at MISSED_BOUNDARY: String.split by a global search (same matches). */
const MISSED_BOUNDARIES = new RegExp(MISSED_BOUNDARY.source, 'gu');

/**
 * segmentSentences as offsets into the paragraph: start and end of each sentence in turn. Every
 * sentence is a piece of the paragraph (merged ICU segments are adjacent, the missed boundaries'
 * spaces and the ends' spaces are cut off), so each is cut from the text once, after the filters.
 */
function segmentSpans(paragraph: string, base = 0): number[] {
  // Merged segments as offsets: testing the merged text itself (a string grown by +=) made a run of
  // abbreviations quadratic ("Dr. " 40,000 times took 24 s): continues() reads only its tail.
  const merged: { text: string; start: number }[] = [];
  const starts = sentenceStarts(paragraph) ?? icuStarts(paragraph);
  let mergedStart = -1;
  let mergedEnd = -1;
  const close = () => {
    if (mergedStart >= 0) merged.push({ text: paragraph.slice(mergedStart, mergedEnd), start: mergedStart });
  };
  for (let k = 0; k < starts.length; k++) {
    const index = starts[k]!;
    const end = k + 1 < starts.length ? starts[k + 1]! : paragraph.length;
    if (mergedStart >= 0 && continues(tailOf(paragraph, mergedStart, mergedEnd), paragraph.slice(index, end)))
      mergedEnd = end;
    else {
      close();
      mergedStart = index;
      mergedEnd = end;
    }
  }
  close();
  const out: number[] = [];
  const push = (start: number, end: number) => {
    while (start < end && isWhiteSpace(paragraph.charCodeAt(start))) start++;
    while (end > start && isWhiteSpace(paragraph.charCodeAt(end - 1))) end--;
    if (end > start) out.push(base + start, base + end);
  };
  for (const { text, start } of merged) {
    MISSED_BOUNDARIES.lastIndex = 0;
    let from = 0;
    for (let m = MISSED_BOUNDARIES.exec(text); m !== null; m = MISSED_BOUNDARIES.exec(text)) {
      push(start + from, start + m.index);
      from = m.index + m[0].length;
    }
    push(start + from, start + text.length);
  }
  return out;
}

const MIN_CHARS = 25;
const MAX_CHARS = 600;

/**
 * Sentences of a plain text that can stand alone as a quoted answer sentence, in order: paragraphs
 * (line breaks) are never crossed; very short pieces, headings without sentence-final punctuation,
 * over-long run-ons and page chrome (./debris.ts) are dropped; a leading label ("AI-assisted
 * summary", an orphan time zone) is cut off, so what remains is still verbatim in the article.
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  eachSentence(text, (_start, _end, sentence) => out.push(sentence));
  return out;
}

/** Each sentence of splitSentences(text) in turn, with where it is in the text. */
function eachSentence(text: string, onSentence: (start: number, end: number, sentence: string) => void): void {
  // The paragraphs of text.split(/\n+/), by offset.
  for (let from = 0; from <= text.length; ) {
    let end = text.indexOf('\n', from);
    if (end < 0) end = text.length;
    const para = text.slice(from, end);
    const p = para.trim();
    if (p && !isDebris(p)) {
      const lead = para.length - para.trimStart().length;
      const spans = segmentSpans(p, from + lead);
      const clean = !hasInvisible(p);
      for (let i = 0; i < spans.length; i += 2) {
        const t = sentenceText(text, spans[i]!, spans[i + 1]!);
        if (t.length < MIN_CHARS || t.length > MAX_CHARS) continue;
        if (!/[.!?…"”’)]$/.test(t)) continue;
        // A sentence cut verbatim from a clean paragraph needs only the debris tests anchored at its ends.
        const verbatim = clean && t.length === spans[i + 1]! - spans[i]! && t === text.slice(spans[i], spans[i + 1]);
        if ((verbatim ? isDebrisInProse(t) : isDebris(t)) || isBoilerplate(t)) continue;
        onSentence(spans[i]!, spans[i + 1]!, t);
      }
    }
    from = end + 1;
    while (from < text.length && text.charCodeAt(from) === 10) from++;
  }
}

/** White space that /\s+/g → ' ' would change: a run of two, or one that is not a plain space. */
const UNEVEN_SPACE = /\s\s|[^\S ]/;

function sentenceText(text: string, start: number, end: number): string {
  const t = text.slice(start, end);
  // Most sentences are single-spaced already, and replace makes a new string whenever it matches.
  return stripChrome((UNEVEN_SPACE.test(t) ? t.replace(/\s+/g, ' ') : t).trim());
}

/** Link teasers ("More: …", "READ: …") and runs of headlines glued together by the page layout. */
const TEASER =
  /^(more|read|read more|related|also read|see also|watch|listen|subscribe|sign up|contact|follow|click|photos?|video|advertisement)\s*[:|]/i;

export function isBoilerplate(sentence: string): boolean {
  if (TEASER.test(sentence)) return true;
  if (/\b(more|read|related)\s*:\S/i.test(sentence)) return true;
  // "Apollo 17:Last step … schedule: Upcoming …": teaser links glued into one line.
  if (/\w:\p{Lu}/u.test(sentence) || colonsBeforeSpace(sentence) >= 2) return true;
  // The words that open with a letter (what sentence.split(/\s+/) gives, counted without arrays
  // or word strings: this runs on every sentence of every passage indexed and of every answer).
  let w = 0;
  let capitalized = 0;
  for (let i = 0; i < sentence.length; ) {
    if (isWhiteSpace(sentence.charCodeAt(i))) {
      i++;
      continue;
    }
    // ASCII is told by its code (\p{L} and \p{Lu} hold no other ASCII than A-Z and a-z), the
    // rest by the patterns (a regex call per word was a fifth of this function's time).
    const c = sentence.charCodeAt(i);
    if (c < 128) {
      if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) {
        w++;
        if (c <= 90) capitalized++;
      }
    } else {
      LETTER_AT.lastIndex = i;
      if (LETTER_AT.test(sentence)) {
        w++;
        UPPER_AT.lastIndex = i;
        if (UPPER_AT.test(sentence)) capitalized++;
      }
    }
    while (i < sentence.length && !isWhiteSpace(sentence.charCodeAt(i))) i++;
  }
  if (w >= 12) {
    // Headlines in title case leave only their small words in lower case; a sentence dense with
    // names still has a verb or a noun in lower case ("… are among the agency's speakers at the
    // Space Foundation's 37th Space Symposium … in Colorado Springs, Colo."). Without this test
    // 1 % of the news corpus's sentences were dropped, the fact-dense ones (who plays where, when).
    if (capitalized / w > 0.55) {
      const word = /\S+/g;
      for (let m = word.exec(sentence); m !== null; m = word.exec(sentence))
        if (isLowerCaseContentWord(m[0])) return false;
      return true;
    }
  }
  return false;
}

/** A letter, an upper-case letter, where lastIndex says (a word's first character). */
const LETTER_AT = /\p{L}/uy;
const UPPER_AT = /\p{Lu}/uy;

/** How many times /:\s/ matches (a colon, then white space). */
function colonsBeforeSpace(s: string): number {
  let n = 0;
  for (let i = s.indexOf(':'); i >= 0 && i + 1 < s.length; i = s.indexOf(':', i + 1))
    if (isWhiteSpace(s.charCodeAt(i + 1))) n++;
  return n;
}

/** The words title case writes in lower case (AP and Chicago styles): articles, conjunctions, short prepositions. */
const TITLE_CASE_SMALL = new Set(
  'a an the and but or nor for so yet of in on at to by from with as via into onto over up off per vs than'.split(' '),
);

const isLowerCaseContentWord = (word: string) =>
  /^\p{Ll}/u.test(word) && !TITLE_CASE_SMALL.has(word.replace(/[^\p{L}]/gu, ''));
