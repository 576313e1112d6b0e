// The sentence scanner (sentence-breaks.ts) gives ICU's boundaries wherever it answers at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sentenceStarts } from './sentence-breaks.ts';
import { icuStarts, segmentSentences } from './sentences.ts';
import { hasNews, readArticles } from '../answer/testing/news-corpus.ts';

/** mulberry32: a seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const same = (p: string) => {
  const mine = sentenceStarts(p);
  if (mine) assert.deepEqual(mine, icuStarts(p), JSON.stringify(p));
  return mine !== undefined;
};

test('ICU boundaries on random strings of terminators, quotes, spaces, letters and the classified symbols', () => {
  // Each string mixes the characters the rules turn on with one or two others of the table, so a
  // character given the wrong class shows as a boundary ICU does not make (";" was one: SContinue).
  const core = 'aB. .!?"\'()[]{},-:1 ';
  const extra =
    '\t\u000b\u000c\u00a0ª­º«»¢£¤¥¦§¨©¬®¯°±´¶·¸¿¡µ×÷‘’“”–—‐‒―•…−€™▶►●◾➤;<>=/#$%&*+@\\^_`|~ÀÉßñĸŉſĲĳ中\u0301\u200b\u2028';
  const rnd = random(26);
  let answered = 0;
  for (let k = 0; k < 40_000; k++) {
    const a = extra[Math.floor(rnd() * extra.length)]!;
    const b = extra[Math.floor(rnd() * extra.length)]!;
    let s = '';
    for (let i = Math.floor(rnd() * 30); i >= 0; i--) {
      const r = rnd();
      s += r < 0.15 ? a : r < 0.3 ? b : core[Math.floor(rnd() * core.length)];
    }
    if (same(s)) answered++;
  }
  assert.ok(answered > 30_000, `the scanner answered ${answered} of 40,000`);
});

test('ICU boundaries on news sentences: abbreviations, decimals, quotes after the stop, lower-case continuations', () => {
  for (const p of [
    'Dr. Smith met U.S. Army officials in Washington on Monday. They left.',
    'The rate rose 3.5 percent. "We are pleased," he said. (The rest followed.) and then more.',
    'It closed at 5 p.m. The shares rose. Really?! Yes... fine. e.g. this — or that – here.',
    'He asked: "Why?" — and left. ‘Quoted.’ “Twice.” Then: no. 2. items; a. b',
    'Ends with spaces.   ',
    '',
    'Café owners said. Über alles. Ça va. ß.',
  ])
    assert.ok(same(p), JSON.stringify(p));
  assert.equal(sentenceStarts('a combining e\u0301 mark'), undefined, 'Extend characters go to ICU');
  assert.equal(sentenceStarts('中文。'), undefined, 'other scripts go to ICU');
});

test('a 1 MiB run of terminators, spaces or quotes is scanned in linear time', () => {
  // Linear, checked by how the time grows from 128 KiB to 1 MiB (8x the text: about 8x the time,
  // 64x if quadratic) rather than by a wall-clock bound, which a loaded machine broke (1,189 ms).
  const timed = (text: string) => {
    const t0 = performance.now();
    const starts = sentenceStarts(text)!;
    return { starts, ms: performance.now() - t0 };
  };
  for (const unit of ['. ', '.', '!?', '.)', '. )', '. 1', 'a.', '. -', '"']) {
    const runOf = (bytes: number) => unit.repeat(Math.ceil(bytes / unit.length));
    const eighth = timed(runOf(128 * 1024));
    const { starts, ms } = timed(runOf(1024 * 1024));
    assert.ok(
      ms < Math.max(24 * eighth.ms, 100),
      `${JSON.stringify(unit)}: ${ms.toFixed(0)} ms for 1 MiB, ${eighth.ms.toFixed(1)} ms for 128 KiB`,
    );
    const small = unit.repeat(200);
    assert.deepEqual(sentenceStarts(small), icuStarts(small), JSON.stringify(unit));
    assert.ok(starts.length >= 1);
  }
});

test('ICU boundaries on every paragraph of the news corpus', { skip: !hasNews && 'no news corpus' }, () => {
  // Every third article (all of them: 514,738 paragraphs, 2,652 left to ICU, none differing; 17 s).
  let paragraphs = 0;
  let answered = 0;
  for (const [i, a] of readArticles().entries())
    for (const p of i % 3 ? [] : a.text.split('\n')) {
      paragraphs++;
      if (same(p)) answered++;
    }
  assert.ok(answered > 0.99 * paragraphs, `${answered} of ${paragraphs}`);
});

test('segmentSentences cuts with the scanner as it did with ICU alone', () => {
  assert.deepEqual(segmentSentences('It landed in Beverly Hills, Calif., on Tuesday. The crowd cheered.'), [
    'It landed in Beverly Hills, Calif., on Tuesday.',
    'The crowd cheered.',
  ]);
});
