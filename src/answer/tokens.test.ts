// Token counts (tokens.ts) are exactly gpt-tokenizer's o200k_base ids, without its quadratic merge.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import {
  countTokens,
  encodeTokens,
  MAX_TOKEN_BYTES,
  MERGED_PIECES_HELD,
  mergedPieceStats,
  mergedPiecesHeld,
  truncateToTokens,
  warmTokenizer,
} from './tokens.ts';
import { hasNews, readArticles } from './testing/news-corpus.ts';

type Lib = {
  encode(t: string, o?: object): number[];
  decode(ids: number[]): string;
  decodeGenerator(ids: number[]): Iterable<string>;
};
const lib = createRequire(import.meta.url)('gpt-tokenizer/cjs/encoding/o200k_base') as Lib;
const plain = { disallowedSpecial: new Set<string>() };

// First: the vocabulary must not be loaded yet.
test('warmTokenizer reads the vocabulary in slices, letting other work run in between', async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  await warmTokenizer();
  clearInterval(timer);
  assert.ok(ticks >= 10, `only ${ticks} timer callbacks ran while it loaded`);
  assert.equal(countTokens('hello world'), 2);
});

function sameAsLib(text: string): void {
  const theirs = lib.encode(text, plain);
  assert.deepEqual(encodeTokens(text), theirs, JSON.stringify(text.slice(0, 60)));
  assert.equal(countTokens(text), theirs.length);
}

test('ids equal gpt-tokenizer on random and adversarial strings (both merge paths)', () => {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const alphabets = ['abcdefghijklmnopqrstuvwxyz', 'aA1 .,!é中🙂\n\t-_(', 'Mm', '( ', 'ab', '  \n', 'ǅÅ̀ß'];
  for (let k = 0; k < 400; k++) {
    const a = alphabets[k % alphabets.length];
    const n = Math.floor(rnd() * 300);
    sameAsLib(Array.from({ length: n }, () => a[Math.floor(rnd() * a.length)]).join(''));
  }
  for (const s of ['M'.repeat(3000), '('.repeat(2000), `${' '.repeat(2000)}x`, '🙂'.repeat(500), '\n'.repeat(999)])
    sameAsLib(s);
  sameAsLib('héllo wörld, the 2025 budget — “quoted” text\u0301 and a lone surrogate \ud800 end');
});

test('ids equal gpt-tokenizer on ASCII text around the pieces found without the pattern', () => {
  // Letter runs ended by an apostrophe, a digit or a non-ASCII character; runs of 1-4 digits; a
  // space before a digit, a mark or a line break; marks before line breaks and slashes; text ends.
  let seed = 26;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const alphabets = ['aZ9 \'/.\r\n,"-', 'Ab1 ’é½٣  \t', "xY0 '(:)/\n", 'abcDEF 12345 ,.!?;'];
  for (let k = 0; k < 2000; k++) {
    const a = alphabets[k % alphabets.length];
    const n = Math.floor(rnd() * 40);
    sameAsLib(Array.from({ length: n }, () => a[Math.floor(rnd() * a.length)]).join(''));
  }
  for (const s of [
    "don't",
    "He's",
    "ABC's",
    'x 1',
    'x ,',
    'x .\n/',
    '12½',
    '123½',
    "'Tis",
    ' ',
    ',',
    'a\u0301',
    'A\u01c5',
  ])
    sameAsLib(s);
});

test('ids equal gpt-tokenizer on news articles', { skip: !hasNews && 'no ../shared/corpus/news' }, () => {
  for (const a of readArticles(300)) {
    sameAsLib(`${a.title}\n${a.text}`);
    // Pieces matched in place (countTokens) on text with no non-ASCII piece at all.
    sameAsLib(`${a.title}\n${a.text}`.replace(/[^\x00-\x7f]/g, ''));
  }
});

test('merged pieces keep their counts up to MERGED_PIECES_HELD, and counts stay exact past it', () => {
  let seed = 11;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  // Made-up words: pieces no token spells whole, so each is merged (and its count held).
  const word = () => Array.from({ length: 9 }, () => 'bcdfghjkqvwxz'[Math.floor(rnd() * 13)]).join('');
  const words = Array.from({ length: MERGED_PIECES_HELD + 4000 }, word);
  const first = words.slice(0, 2000).join(' ');
  const expected = lib.encode(first, plain).length;
  assert.equal(countTokens(first), expected);
  assert.ok(mergedPiecesHeld() >= 1000, `${mergedPiecesHeld()} counts held after 2,000 new words`);
  assert.equal(countTokens(first), expected, 'the held counts give the same total');
  // An edited text: its changed pieces are new keys, so no count held for the old text applies.
  const edited = first.replace(words[0]!, `${words[0]!.slice(0, 4)}q${words[0]!.slice(5)}x`);
  assert.equal(countTokens(edited), lib.encode(edited, plain).length);
  const all = words.join(' ');
  assert.equal(countTokens(all), lib.encode(all, plain).length);
  assert.ok(mergedPiecesHeld() <= MERGED_PIECES_HELD, `${mergedPiecesHeld()} held`);
  // The first words' counts left first; counted again, they are merged again, and still exact.
  assert.equal(countTokens(first), expected);
});

test('held pieces leave their table slots when they leave, and are found again while held', () => {
  let seed = 5;
  const rnd = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  // Distinct made-up words of 2-20 letters (held from 2 bytes up), three times what is held: every
  // slot of an evicted piece must be freed (or the table fills) and probe runs stay unbroken.
  const word = () =>
    Array.from({ length: 2 + Math.floor(rnd() * 19) }, () => 'bcdfghjkqvwxz'[Math.floor(rnd() * 13)]).join('');
  const distinct = new Set<string>();
  while (distinct.size < 3 * MERGED_PIECES_HELD) distinct.add(word());
  const words = [...distinct];
  for (const [i, w] of words.entries()) {
    const n = countTokens(w);
    if (i % 97 === 0) assert.equal(n, lib.encode(w, plain).length, w);
  }
  assert.equal(mergedPiecesHeld(), MERGED_PIECES_HELD);
  assert.equal(mergedPieceStats().slots, MERGED_PIECES_HELD);
  // The last words are held: counting them again merges nothing (a lookup that stopped at a
  // hole left by an eviction would merge again).
  const before = mergedPieceStats().merged;
  for (const w of words.slice(-MERGED_PIECES_HELD / 2)) countTokens(w);
  assert.equal(mergedPieceStats().merged, before);
  assert.equal(mergedPieceStats().slots, MERGED_PIECES_HELD);
  for (const w of words.slice(-50)) assert.equal(countTokens(w), lib.encode(w, plain).length, w);
});

test('special-token text counts as plain text (gpt-tokenizer threw on it)', () => {
  assert.equal(countTokens('<|endoftext|>'), lib.encode('<|endoftext|>', plain).length);
});

test('no token is longer than MAX_TOKEN_BYTES (the bound the validation relies on)', () => {
  const longest = lib.encode('x'.repeat(1), plain).length; // loads the library's table
  assert.equal(longest, 1);
  const raw = createRequire(import.meta.url)('gpt-tokenizer/cjs/bpeRanks/o200k_base') as {
    default: (string | number[] | undefined)[];
  };
  let max = 0;
  for (const v of raw.default)
    if (v !== undefined) max = Math.max(max, typeof v === 'string' ? Buffer.byteLength(v) : v.length);
  assert.equal(max, MAX_TOKEN_BYTES);
});

test('a 1 MiB unbroken run is counted (gpt-tokenizer took over 12 minutes)', () => {
  assert.equal(countTokens('M'.repeat(1024 * 1024)), 262_144);
  assert.equal(countTokens('('.repeat(1024 * 1024)), lib.encode('('.repeat(4096), plain).length * 256);
});

test('truncateToTokens keeps whole tokens and drops a cut character', () => {
  const text = 'Le café est très bon 🙂🙂 aujourd’hui';
  const ids = lib.encode(text, plain);
  for (let m = 1; m <= ids.length + 1; m++)
    assert.equal(truncateToTokens(text, m), lib.decode(ids.slice(0, m)), `${m}`);
  assert.equal(truncateToTokens(text, 0), '');
});

test('the loaded vocabulary holds under 8 MB (a Map of its 200k token strings held 15 MB)', () => {
  // A fresh process, so nothing else this file loaded is counted.
  const out = execFileSync(
    process.execPath,
    [
      '--expose-gc',
      '--input-type=module',
      '-e',
      `const { countTokens } = await import(${JSON.stringify(new URL('./tokens.ts', import.meta.url).href)});
       gc(); const m0 = process.memoryUsage(); countTokens('warm'); gc(); const m1 = process.memoryUsage();
       console.log(m1.heapUsed + m1.arrayBuffers - m0.heapUsed - m0.arrayBuffers);`,
    ],
    { encoding: 'utf8' },
  );
  const mb = Number(out.trim()) / 1e6;
  assert.ok(mb > 1 && mb < 8, `the vocabulary holds ${mb.toFixed(1)} MB`);
});
