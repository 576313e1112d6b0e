// words() is rewritten for speed (in place, replacing only where needed): it must split exactly as
// the plain definition does, on the news corpus and on apostrophe edge cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { terms, termsOfWords, words } from './terms.ts';
import { hasNews, readArticles } from '../testing/news-corpus.ts';

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’\-]*/gu;
const plain = (text: string) =>
  (text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/’/g, "'").replace(/'s$/, ''));

test('words() splits as the plain definition on apostrophe edge cases', () => {
  for (const s of [
    '',
    '...',
    "Biden's plan, the EU’s rules and O’Brien’s ’s 's x's",
    "it's what’s rock’n’roll’s s's ’s’s Macy's'",
    'Ünïcödé Straße’s 2025’s well-being',
  ])
    assert.deepEqual(words(s), plain(s), s);
});

test('words() splits news articles as the plain definition', { skip: !hasNews && 'no ../shared/corpus/news' }, () => {
  for (const a of readArticles(400)) assert.deepEqual(words(a.text), plain(a.text));
});

test('terms of words() at hand equal terms() of the text', { skip: !hasNews && 'no ../shared/corpus/news' }, () => {
  for (const a of readArticles(200)) assert.deepEqual(termsOfWords(words(a.text)), terms(a.text));
});
