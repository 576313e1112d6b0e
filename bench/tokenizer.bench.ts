// Tokenizer speed on the news corpus (title + text of every article): tokens/s of indexTerms and
// termFrequencies with a warm stem memo, against a manual char-code loop variant and against FTS5
// tokenizing the same text (insert into a contentless porter table), measured in the same run.
// `node bench/tokenizer.bench.ts [rounds]`
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { loadavg } from 'node:os';
import { indexTerms, termFrequencies, stem, wordTokens } from '../src/search/tokenizer.ts';
import { SHARED } from '../test/helpers.ts';

const rounds = Number(process.argv[2] ?? 3);
const lines = gunzipSync(readFileSync(join(SHARED, 'corpus/news/articles.jsonl.gz')))
  .toString('utf8')
  .split('\n');
const texts = lines.filter(Boolean).map((l) => {
  const a = JSON.parse(l) as { title: string; text: string };
  return `${a.title}\n${a.text}`;
});
// Articles whose only non-ASCII characters are punctuation (curly quotes, dashes): the ASCII path.
const asciiTexts = texts.filter((t) => !/[\p{L}\p{N}\p{M}]/u.test(t.replace(/[\x00-\x7f]/g, '')));
const tokenCount = texts.reduce((n, t) => n + wordTokens(t).length, 0);
const asciiTokenCount = asciiTexts.reduce((n, t) => n + wordTokens(t).length, 0);

// Alternative hot loop for ASCII text: one pass over char codes, lowercasing by hand.
function manualAsciiTerms(text: string): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    const word = (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
    if (word) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push(stem(text.slice(start, i).toLowerCase()));
      start = -1;
    }
  }
  return out;
}

function timeIt(name: string, docs: string[], tokens: number, fn: (t: string) => unknown): number {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (const d of docs) fn(d);
    best = Math.min(best, performance.now() - t0);
  }
  const rate = tokens / (best / 1000);
  console.log(`${name.padEnd(44)} ${(rate / 1e6).toFixed(2)}M tokens/s  (${best.toFixed(0)} ms best of ${rounds})`);
  return rate;
}

for (const t of texts) indexTerms(t); // warm the stem memo and the JIT
console.log(
  `news corpus: ${texts.length} articles, ${tokenCount} tokens; ${asciiTexts.length} ASCII-letter articles, ${asciiTokenCount} tokens`,
);
const db = new DatabaseSync(':memory:');
db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, content='', tokenize='porter unicode61 remove_diacritics 2')`);
const insert = db.prepare('INSERT INTO t(x) VALUES (?)');
const fts = timeIt('FTS5 insert (baseline; tokenize + index)', texts, tokenCount, (t) => insert.run(t));
const all = timeIt('indexTerms, all articles', texts, tokenCount, indexTerms);
timeIt('termFrequencies, all articles', texts, tokenCount, termFrequencies);
const ascii = timeIt('indexTerms, ASCII-letter articles', asciiTexts, asciiTokenCount, indexTerms);
const manual = timeIt('manual char loop variant, same articles', asciiTexts, asciiTokenCount, manualAsciiTerms);
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(
  `indexTerms / FTS5 insert: ${(all / fts).toFixed(1)}x; regex / manual loop (ASCII): ${(ascii / manual).toFixed(2)}x`,
);
