// countJoinedTokens adds up per-passage counts instead of counting an answer's whole prompt: it
// must give exactly what counting the joined text gives, on real articles and on the joins the
// pre-tokenizer could merge across a line break.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countJoinedTokens, countTokens } from './tokens.ts';
import { itemPassages } from '../search/indexing.ts';
import { hasNews, readArticles } from './testing/news-corpus.ts';

const joinedCount = (parts: string[]) => countTokens(parts.join('\n'));

test('joined counts equal the count of the joined text at every join the tokenizer could merge', () => {
  const cases: string[][] = [
    ['Who won?', 'The Eagles won.', 'It was close.'],
    ['Ends with a full stop.', '/r/news says so', 'done'],
    ['Punctuation run!!!', '…and an ellipsis', '"quoted"', '(aside)'],
    ['trailing spaces   ', 'next', 'tab\t', 'x'],
    ['a', ' leading space', '\tleading tab', '\u00a0no-break', '\u3000ideographic'],
    ['one', '', 'after an empty part', ''],
    ['line\r', 'carriage return before it', 'crlf\r\n', 'x'],
    ['123', '456', '7,890.', '12:30 p.m. ET'],
    ["it's", "'s", "don't", 'ok'],
    ['日本語の文。', '한국어 문장.', 'emoji 🎉', '🎉 first', 'Ünïcödé'],
    ['multi\nline\n\npart', 'and\n', '\nstarts with a break'],
    ['', 'first empty'],
    ['single'],
    [],
  ];
  for (const parts of cases) {
    // Twice: the second time from the per-part counts it keeps.
    assert.equal(countJoinedTokens(parts), joinedCount(parts), JSON.stringify(parts));
    assert.equal(countJoinedTokens(parts), joinedCount(parts), JSON.stringify(parts));
  }
});

test('joined counts equal whole counts on the passages of real news articles', {
  skip: hasNews ? false : 'skipped: ../shared/corpus/news is not present beside the checkout',
}, () => {
  const articles = readArticles(300);
  const passagesOf = articles.map((a) => itemPassages({ title: a.title, content: a.text, summary: null }));
  let joins = 0;
  for (let i = 0; i < passagesOf.length; i++) {
    // An answer's prompt: the question, then the passages of several sources in a row.
    const parts = [`Question ${i}: what happened?`, ...passagesOf[i]!, ...(passagesOf[i + 1] ?? []).slice(0, 2)];
    assert.equal(countJoinedTokens(parts), joinedCount(parts), articles[i]!.url);
    assert.equal(countJoinedTokens(passagesOf[i]!), joinedCount(passagesOf[i]!), articles[i]!.url);
    joins += parts.length - 1;
  }
  assert.ok(joins > 1000, `${joins} joins checked`);
});
