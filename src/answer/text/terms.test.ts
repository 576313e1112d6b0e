// words() is rewritten for speed (in place, replacing only where needed): it must split exactly as
// the plain definition does, on the news corpus and on apostrophe edge cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stem, terms, termsOfWords, words } from './terms.ts';
import { hasNews, readArticles } from '../testing/news-corpus.ts';

// A word joined by "&" ("q&a", "at&t": one to three letters each side) is one word.
const WORD = /(?<![\p{L}\p{N}&'’\-])\p{L}{1,3}&\p{L}{1,3}(?![\p{L}\p{N}&'’\-])|[\p{L}\p{N}][\p{L}\p{N}'’\-]*/gu;
const plain = (text: string) =>
  (text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/’/g, "'").replace(/'s$/, ''));

const splitsAsPlain = (cases: string[]) => {
  for (const s of cases) assert.deepEqual(words(s), plain(s), s);
};

test('words() splits as the plain definition on apostrophe edge cases', () => {
  splitsAsPlain([
    '',
    '...',
    "Biden's plan, the EU’s rules and O’Brien’s ’s 's x's",
    "it's what’s rock’n’roll’s s's ’s’s Macy's'",
    'Ünïcödé Straße’s 2025’s well-being',
  ]);
});

test('words joined by "&" are one word: "Q&A", "R&D", "AT&T", "M&A", "B&B" have a term; "Johnson & Johnson" does not join', () => {
  splitsAsPlain(['Q&A R&D AT&T M&A B&B S&P', 'Johnson & Johnson, Procter&Gamble, a&b&c, x-q&a, 𝐀𝐁&c, Q&As']);
  assert.deepEqual(terms('What was the last Q&A about? R&D at AT&T, M&A, a B&B'), [
    'last',
    'q&a',
    'r&d',
    'at&t',
    'm&a',
    'b&b',
  ]);
  assert.deepEqual(terms('Johnson & Johnson'), ['johnson', 'johnson']);
});

test('words() splits as the plain definition on letters of other planes, marks and lone surrogates', () => {
  splitsAsPlain([
    '𝐀𝐁c d 𠜎𠜱 x𝟘y',
    '\ud800x \udc00 y\ud835',
    'İstanbul, Kelvin \u212a, ǅemal ΟΔΟΣ Σ',
    'a\u0301b Ⅻ ½ ٣٤ 中文字 ‘quoted’ — en–dash -lead trail- \u00a0nb',
  ]);
});

test('words() splits random text as the plain definition', () => {
  // Letters, digits, marks, apostrophes, hyphens, spaces and surrogates of every kind, mixed.
  const pool = [..."aZ09'’-  .,&&İıΣσςé\u0301ǅ½٣中\u212a"].concat(['\ud835\udc00', '\ud800', '\udc00', '😀']);
  let seed = 26;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
  for (let n = 0; n < 2_000; n++) {
    let s = '';
    for (let k = next() % 40; k > 0; k--) s += pool[next() % pool.length];
    assert.deepEqual(words(s), plain(s), JSON.stringify(s));
  }
});

test('words() splits news articles as the plain definition', { skip: !hasNews && 'no ../shared/corpus/news' }, () => {
  for (const a of readArticles(400)) assert.deepEqual(words(a.text), plain(a.text));
});

test('terms of words() at hand equal terms() of the text', { skip: !hasNews && 'no ../shared/corpus/news' }, () => {
  for (const a of readArticles(200)) assert.deepEqual(termsOfWords(words(a.text)), terms(a.text));
});

test('stem leaves words with a digit as they are and strips the others', () => {
  assert.deepEqual(['2020s', 'covid19ed', 'b52s', 'elections', 'announced', 'policies', 'boxes', 'us'].map(stem), [
    '2020s',
    'covid19ed',
    'b52s',
    'election',
    'announc',
    'policy',
    'box',
    'us',
  ]);
});
